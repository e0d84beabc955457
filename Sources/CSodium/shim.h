#ifndef KURA_CSODIUM_SHIM_H
#define KURA_CSODIUM_SHIM_H
#include <sodium.h>
#endif
