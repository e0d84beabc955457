#ifndef KURA_CSQLITE_SHIM_H
#define KURA_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import; bind calls take this instead.
static inline sqlite3_destructor_type kura_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_config is variadic; wrap the settings Kura uses. Effective only before SQLite's first use in the process.
// Multi-thread mode: each connection is used by one thread at a time, so SQLite's per-connection mutexes are
// waste. No memory statistics: they take a global mutex on every allocation of every connection.
static inline int kura_sqlite_configure_process(void) {
    int rc = sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
