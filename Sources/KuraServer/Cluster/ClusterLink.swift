import KuraAuth
import KuraCore
import KuraEngine
import KuraRealtime
import KuraStore

/// What this node tells the other nodes on its engine and what it does when they tell it something
/// (docs/design/scaling.md, "What nodes tell each other"). Alone on its engine (SQLite), the channel is local and
/// only the wiring below that publishes runs, to nobody.
///
/// | heard | done here |
/// | --- | --- |
/// | `documentsChanged` (the engine's commit notification) | the realtime feed (with listeners) or else the change-log follower reads the log; the follower forgets the cached documents other nodes wrote before the feed delivers them |
/// | `accountChanged`, `revoked` | `AuthService.applyRemote`: the account cache forgets the user, the token cache re-checks the user's tokens (and the per-loop caches drop theirs: the revocation epoch moved); a revocation also ends the listen streams it covers |
/// | `signingKeysRotated` | the key ring is read again |
/// | `rulesPublished` | the newest rules are read and put in force (remembered rule decisions die with the old version) |
/// | `resync` (the channel reconnected) | all of the above for everything: every cache forgotten, every stream's credentials checked again, rules and keys read again; the token cache answers again |
/// | `disconnected` (the channel lost its connection) | the token cache answers nothing until the `resync`: every request re-checks the database |
///
/// A revocation or an account change made here answers only once every other live node has applied it
/// (`ClusterChannel.publishAndWait`), or after `cluster.revocationWaitMilliseconds`: then the nodes that did not
/// confirm are logged (each either is gone, or lost its connection and re-checks every token until it resyncs).
final class ClusterLink: Sendable {
    let channel: any ClusterChannel
    private let auth: AuthService
    private let rules: SecurityRules
    private let realtime: ListenerRegistry
    /// `nil` when the node is alone (nobody else writes).
    let follower: ChangeLogFollower?
    private let logger: Logger
    /// Polls the rules' version, in case a notification is lost; `nil` when the node is alone.
    private let rulesPoll: Maintenance?
    /// How long a revocation waits for the other nodes to confirm it.
    private let revocationWait: Duration

    init(
        channel: any ClusterChannel, auth: AuthService, rules: SecurityRules, realtime: ListenerRegistry,
        follower: ChangeLogFollower?, pollSeconds: Double, revocationWait: Duration = .seconds(2), logger: Logger
    ) {
        self.channel = channel
        self.auth = auth
        self.rules = rules
        self.realtime = realtime
        self.follower = follower
        self.logger = logger
        self.revocationWait = revocationWait
        rulesPoll =
            channel.shared == nil
            ? nil
            : Maintenance(
                name: "kura-rulespoll", interval: pollSeconds, logger: logger,
                tasks: [("read the newest shared rules", { rules.syncShared() })])
        auth.observeChanges { [self] change in
            switch change {
            case .accountChanged(let uid): publishAndWait(.accountChanged(uid: uid))
            case .revoked(let revocation):
                publishAndWait(
                    .revoked(
                        uid: revocation.uid, sessionID: revocation.sessionID, keptSessionID: revocation.keptSessionID))
            case .signingKeysRotated: publish(.signingKeysRotated)
            }
        }
        rules.observePublications { [self] version in publish(.rulesPublished(version: version)) }
    }

    func start() {
        if let version = rules.takeStartPublication() { publish(.rulesPublished(version: version)) }
        channel.start { [self] event in handle(event) }
        follower?.start()
        rulesPoll?.start()
    }

    func stop() {
        rulesPoll?.stop()
        channel.stop()
        follower?.stop()
    }

    /// Tells the other nodes; a failure is logged (they see the change at their next periodic re-check:
    /// the token cache's 60-second re-check for tokens, `cluster.pollMilliseconds` for rules).
    private func publish(_ event: ClusterEvent) {
        do { try channel.publish(event) } catch {
            logger.error("cluster: could not tell the other nodes (\(event)): \(error)")
        }
    }

    /// Tells the other nodes and waits for every live one to apply it (on the worker pool: `AuthService` announces
    /// its changes on the thread that made them, and every route that changes accounts offloads). A failure to
    /// send is logged as by `publish`; nodes that did not confirm in time are logged by name.
    private func publishAndWait(_ event: ClusterEvent) {
        do {
            let missing = try channel.publishAndWait(event, timeout: revocationWait)
            if !missing.isEmpty {
                logger.warn(
                    "cluster: \(missing.count) node(s) did not confirm \(event) within \(revocationWait): "
                        + missing.joined(separator: ", ")
                        + " (a node that lost its connection re-checks every token until it resyncs)")
            }
        } catch {
            logger.error("cluster: could not tell the other nodes (\(event)): \(error)")
        }
    }

    private func handle(_ event: ClusterEvent) {
        switch event {
        case .documentsChanged(let through):
            follower?.notified(through: through, feedReads: realtime.targetCount > 0)
        case .accountChanged(let uid):
            auth.applyRemote(.accountChanged(uid: uid))
        case .revoked(let uid, let sessionID, let keptSessionID):
            auth.applyRemote(.revoked(Revocation(uid: uid, sessionID: sessionID, keptSessionID: keptSessionID)))
        case .signingKeysRotated:
            auth.applyRemote(.signingKeysRotated)
        case .rulesPublished:
            rules.syncShared()
        case .disconnected:
            auth.suspendCachedTokens()
        case .resync:
            follower?.resync()
            auth.forgetCachedState()
            auth.resumeCachedTokens()
            realtime.recheckAllCredentials()
            rules.syncShared()
        }
    }
}
