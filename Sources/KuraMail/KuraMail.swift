/// Mail: a persistent outbox and SMTP delivery. (Issue 4 fills this in.)
public enum KuraMail {}
