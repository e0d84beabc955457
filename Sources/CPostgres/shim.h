#ifndef KURA_CPOSTGRES_SHIM_H
#define KURA_CPOSTGRES_SHIM_H
// Debian's libpq-dev installs its headers under /usr/include/postgresql (pkg-config libpq adds that path).
#include <libpq-fe.h>
#endif
