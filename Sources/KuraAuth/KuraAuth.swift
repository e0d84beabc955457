/// Accounts: passwords, tokens, action codes, rate limits. (Issue 4 fills this in.)
public enum KuraAuth {}
