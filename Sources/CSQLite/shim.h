#ifndef KURA_CSQLITE_SHIM_H
#define KURA_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import; bind calls take this instead.
static inline sqlite3_destructor_type kura_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_config is variadic; wrap the one form Kura uses.
static inline int kura_sqlite_config_multithread(void) { return sqlite3_config(SQLITE_CONFIG_MULTITHREAD); }
#endif
