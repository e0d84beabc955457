// English and Japanese: the browser's language picks one, the switch in the bar changes it (kept in
// localStorage, which holds no secret). English is the fallback for a missing string.

const strings = {
  en: {
    title: 'Kura console', signIn: 'Sign in', signOut: 'Sign out', adminKey: 'Admin key', account: 'Admin account',
    keyHelp: 'The contents of admin.key in the data directory.', email: 'Email', password: 'Password',
    remember: 'Remember on this browser', signInLead: 'Sign in with the admin key or an account with the admin claim.',
    notAdmin: 'This account does not have the admin claim, so the console stays closed.',
    users: 'Users', data: 'Data', rules: 'Rules', indexes: 'Indexes', mail: 'Mail', server: 'Server',
    search: 'Find by the start of an email address', find: 'Find', clear: 'Show all', next: 'Next page', first: 'First page',
    newUser: 'New user', create: 'Create', uid: 'UID', verified: 'Verified', disabled: 'Disabled', claims: 'Claims',
    created: 'Created', lastSignIn: 'Last sign-in', unverified: 'Unverified', yes: 'yes', no: 'no', none: 'none', disable: 'Disable', enable: 'Enable',
    markVerified: 'Mark verified', sendReset: 'Send password reset', sendVerify: 'Send verification',
    revoke: 'Revoke sessions', delete: 'Delete', save: 'Save', cancel: 'Cancel', confirm: 'Confirm',
    saveClaims: 'Save claims', noUsers: 'No users yet.', loading: 'Loading…', close: 'Close',
    collections: 'Collections', open: 'Open', path: 'Path', noCollections: 'No collections yet.',
    noDocuments: 'This collection has no documents on this page.', live: 'Live', newDocument: 'New document',
    documentId: 'Document ID (empty: automatic)', edit: 'Edit', reload: 'Reload', version: 'version',
    queryBuilder: 'Query', addFilter: 'Add filter', field: 'Field', op: 'Operator', value: 'Value (JSON)',
    orderBy: 'Order by', limit: 'Limit', run: 'Run', count: 'Count', code: 'Equivalent code', subcollections: 'Subcollections',
    publish: 'Publish', versions: 'Published versions', current: 'in force', rollback: 'Roll back to this',
    noVersions: 'No versions published from here yet.', check: 'Check', liveRules: 'Rules in force', diff: 'Changes against the rules in force',
    noChanges: 'No changes against the rules in force.', published: 'Published.',
    state: 'State', progress: 'Documents scanned', drop: 'Drop', definition: 'Definition (JSON)',
    noIndexes: 'No composite indexes.', status: 'Status', to: 'To', subject: 'Subject', attempts: 'Attempts',
    link: 'Link', resend: 'Resend', noMail: 'The outbox is empty.', all: 'All', refresh: 'Refresh',
    confirmDelete: 'Delete this for good? This cannot be undone.', done: 'Done.',
    sVersion: 'Version', sUptime: 'Uptime', sEngine: 'Engine', sData: 'Data size', sConnections: 'HTTP connections',
    sStreams: 'Listen streams', sTargets: 'Listen targets', sLog: 'Change log', sMode: 'Mode', sBackup: 'Last backup', development: 'development', production: 'production', oldest: 'oldest', kept: 'kept',
    traffic: 'Traffic', perSecond: 'req/s', now: 'now', minutesAgo: '{0} min ago', secondsAgo: '{0} s ago', time: 'Time', errors: 'Errors (5xx)',
    secondsSpan: '{0} s', minutesSpan: '{0} min',
    trafficCaption: 'Last {0}: {1} req/s, p50 {2}, p95 {3}, p99 {4} ({5} requests, {6} server errors).',
    trafficTable: 'The numbers as a table', noTraffic: 'No requests yet: the chart appears with the first ones.',
    metricsOff: 'Metrics are off (metrics.enabled=false), so no traffic is counted.',
    sCluster: 'Cluster', singleNode: 'single node', nodesSharing: '{0} nodes alive on this database', nodes: 'Nodes',
    node: 'Node', started: 'Started', lastSeen: 'Last seen', thisNode: 'this node', alive: 'alive', gone: 'gone',
    conflict: 'Someone changed this document since you opened it (you read version {0}). Nothing was overwritten: reload to see their change.',
  },
  ja: {
    title: 'Kura コンソール', signIn: 'サインイン', signOut: 'サインアウト', adminKey: '管理キー', account: '管理者アカウント',
    keyHelp: 'データディレクトリの admin.key の内容です。', email: 'メールアドレス', password: 'パスワード',
    remember: 'このブラウザに記憶する', signInLead: '管理キー、または admin クレームを持つアカウントでサインインしてください。',
    notAdmin: 'このアカウントには admin クレームがないため、コンソールは開けません。',
    users: 'ユーザー', data: 'データ', rules: 'ルール', indexes: 'インデックス', mail: 'メール', server: 'サーバー',
    search: 'メールアドレスの先頭で検索', find: '検索', clear: 'すべて表示', next: '次のページ', first: '最初のページ',
    newUser: '新しいユーザー', create: '作成', uid: 'UID', verified: '確認済み', disabled: '無効', claims: 'クレーム',
    created: '作成日時', lastSignIn: '最終サインイン', unverified: '未確認', yes: 'はい', no: 'いいえ', none: 'なし', disable: '無効にする', enable: '有効にする',
    markVerified: '確認済みにする', sendReset: 'パスワード再設定メールを送る', sendVerify: '確認メールを送る',
    revoke: 'セッションを失効', delete: '削除', save: '保存', cancel: 'キャンセル', confirm: '実行',
    saveClaims: 'クレームを保存', noUsers: 'まだユーザーはいません。', loading: '読み込み中…', close: '閉じる',
    collections: 'コレクション', open: '開く', path: 'パス', noCollections: 'まだコレクションはありません。',
    noDocuments: 'このページにドキュメントはありません。', live: 'ライブ', newDocument: '新しいドキュメント',
    documentId: 'ドキュメント ID（空欄で自動）', edit: '編集', reload: '再読み込み', version: 'バージョン',
    queryBuilder: 'クエリ', addFilter: '条件を追加', field: 'フィールド', op: '演算子', value: '値（JSON）',
    orderBy: '並び順', limit: '件数', run: '実行', count: '件数を数える', code: '同じ意味のコード', subcollections: 'サブコレクション',
    publish: '公開', versions: '公開したバージョン', current: '適用中', rollback: 'この版に戻す',
    noVersions: 'まだここから公開したバージョンはありません。', check: '確認', liveRules: '適用中のルール', diff: '適用中のルールとの差分',
    noChanges: '適用中のルールとの差分はありません。', published: '公開しました。',
    state: '状態', progress: '走査したドキュメント', drop: '削除', definition: '定義（JSON）',
    noIndexes: '複合インデックスはありません。', status: '状態', to: '宛先', subject: '件名', attempts: '試行回数',
    link: 'リンク', resend: '再送', noMail: '送信箱は空です。', all: 'すべて', refresh: '更新',
    confirmDelete: '完全に削除しますか？元に戻せません。', done: '完了しました。',
    sVersion: 'バージョン', sUptime: '稼働時間', sEngine: 'エンジン', sData: 'データ量', sConnections: 'HTTP 接続',
    sStreams: 'リスナー接続', sTargets: 'リスナー対象', sLog: '変更ログ', sMode: 'モード', sBackup: '最後のバックアップ', development: '開発', production: '本番', oldest: '最古', kept: '保持',
    traffic: 'トラフィック', perSecond: 'req/s', now: '現在', minutesAgo: '{0} 分前', secondsAgo: '{0} 秒前', time: '時刻', errors: 'エラー (5xx)',
    secondsSpan: '{0} 秒', minutesSpan: '{0} 分',
    trafficCaption: '直近 {0}：{1} req/s、p50 {2}、p95 {3}、p99 {4}（リクエスト {5} 件、サーバーエラー {6} 件）。',
    trafficTable: '数値を表で見る', noTraffic: 'まだリクエストがありません。最初のリクエストでグラフが表示されます。',
    metricsOff: 'メトリクスが無効です（metrics.enabled=false）。トラフィックは計測されていません。',
    sCluster: 'クラスター', singleNode: '単一ノード', nodesSharing: 'このデータベースで稼働中のノード {0} 台', nodes: 'ノード',
    node: 'ノード', started: '起動', lastSeen: '最終確認', thisNode: 'このノード', alive: '稼働中', gone: '停止',
    conflict: 'このドキュメントは開いた後に変更されました（読んだのはバージョン {0}）。上書きしていません。再読み込みして変更を確認してください。',
  },
};

const LANG_KEY = 'kura.console.lang';
let lang = localStorage.getItem(LANG_KEY)
  ?? ((navigator.language || 'en').toLowerCase().startsWith('ja') ? 'ja' : 'en');

export function language() { return lang; }

export function setLanguage(value) {
  lang = value === 'ja' ? 'ja' : 'en';
  localStorage.setItem(LANG_KEY, lang);
  document.documentElement.lang = lang;
}

/** The string for `key` in the current language; `{0}`… are replaced by `args`. */
export function t(key, ...args) {
  const text = strings[lang][key] ?? strings.en[key] ?? key;
  return text.replace(/\{(\d)\}/g, (_, i) => String(args[Number(i)]));
}
