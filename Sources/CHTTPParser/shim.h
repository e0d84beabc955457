#ifndef KURA_CHTTPPARSER_SHIM_H
#define KURA_CHTTPPARSER_SHIM_H
#include <http_parser.h>

// http_parser keeps its read-only fields in C bitfields; these accessors keep Swift away from their layout.
static inline unsigned int kura_http_method(const http_parser *p) { return p->method; }
static inline unsigned int kura_http_errno(const http_parser *p) { return p->http_errno; }
static inline unsigned int kura_http_flags(const http_parser *p) { return p->flags; }
static inline unsigned int kura_http_upgrade(const http_parser *p) { return p->upgrade; }
static inline unsigned int kura_http_uses_transfer_encoding(const http_parser *p) { return p->uses_transfer_encoding; }
#endif
