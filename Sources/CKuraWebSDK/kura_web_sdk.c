// The browser SDK's files (web/sdk/), compiled into the binary with C23's #embed: clang reads each file at build
// time and lists it in the dependency file, so editing web/sdk/*.js rebuilds this and nothing else. Each file is
// guarded by __has_embed, so the list may name modules that do not exist yet. A new module in web/sdk/ needs its
// block here and its entry in the table; KuraServerTests' WebSDKTests fails until it has them.
#pragma clang diagnostic ignored "-Wc23-extensions"
#include "kura_web_sdk.h"

#if __has_embed("../../web/sdk/kura.js")
static const unsigned char kura_js[] = {
#embed "../../web/sdk/kura.js" suffix(,)
    0};
#define KURA_JS {"kura.js", kura_js, sizeof(kura_js) - 1},
#else
#define KURA_JS
#endif

#if __has_embed("../../web/sdk/kura.d.ts")
static const unsigned char kura_d_ts[] = {
#embed "../../web/sdk/kura.d.ts" suffix(,)
    0};
#define KURA_D_TS {"kura.d.ts", kura_d_ts, sizeof(kura_d_ts) - 1},
#else
#define KURA_D_TS
#endif

#if __has_embed("../../web/sdk/accounts.js")
static const unsigned char accounts_js[] = {
#embed "../../web/sdk/accounts.js" suffix(,)
    0};
#define ACCOUNTS_JS {"accounts.js", accounts_js, sizeof(accounts_js) - 1},
#else
#define ACCOUNTS_JS
#endif

#if __has_embed("../../web/sdk/aggregates.js")
static const unsigned char aggregates_js[] = {
#embed "../../web/sdk/aggregates.js" suffix(,)
    0};
#define AGGREGATES_JS {"aggregates.js", aggregates_js, sizeof(aggregates_js) - 1},
#else
#define AGGREGATES_JS
#endif

#if __has_embed("../../web/sdk/app.js")
static const unsigned char app_js[] = {
#embed "../../web/sdk/app.js" suffix(,)
    0};
#define APP_JS {"app.js", app_js, sizeof(app_js) - 1},
#else
#define APP_JS
#endif

#if __has_embed("../../web/sdk/auth.js")
static const unsigned char auth_js[] = {
#embed "../../web/sdk/auth.js" suffix(,)
    0};
#define AUTH_JS {"auth.js", auth_js, sizeof(auth_js) - 1},
#else
#define AUTH_JS
#endif

#if __has_embed("../../web/sdk/database.js")
static const unsigned char database_js[] = {
#embed "../../web/sdk/database.js" suffix(,)
    0};
#define DATABASE_JS {"database.js", database_js, sizeof(database_js) - 1},
#else
#define DATABASE_JS
#endif

#if __has_embed("../../web/sdk/documents.js")
static const unsigned char documents_js[] = {
#embed "../../web/sdk/documents.js" suffix(,)
    0};
#define DOCUMENTS_JS {"documents.js", documents_js, sizeof(documents_js) - 1},
#else
#define DOCUMENTS_JS
#endif

#if __has_embed("../../web/sdk/errors.js")
static const unsigned char errors_js[] = {
#embed "../../web/sdk/errors.js" suffix(,)
    0};
#define ERRORS_JS {"errors.js", errors_js, sizeof(errors_js) - 1},
#else
#define ERRORS_JS
#endif

#if __has_embed("../../web/sdk/listener-views.js")
static const unsigned char listener_views_js[] = {
#embed "../../web/sdk/listener-views.js" suffix(,)
    0};
#define LISTENER_VIEWS_JS {"listener-views.js", listener_views_js, sizeof(listener_views_js) - 1},
#else
#define LISTENER_VIEWS_JS
#endif

#if __has_embed("../../web/sdk/listeners.js")
static const unsigned char listeners_js[] = {
#embed "../../web/sdk/listeners.js" suffix(,)
    0};
#define LISTENERS_JS {"listeners.js", listeners_js, sizeof(listeners_js) - 1},
#else
#define LISTENERS_JS
#endif

#if __has_embed("../../web/sdk/offline.js")
static const unsigned char offline_js[] = {
#embed "../../web/sdk/offline.js" suffix(,)
    0};
#define OFFLINE_JS {"offline.js", offline_js, sizeof(offline_js) - 1},
#else
#define OFFLINE_JS
#endif

#if __has_embed("../../web/sdk/query.js")
static const unsigned char query_js[] = {
#embed "../../web/sdk/query.js" suffix(,)
    0};
#define QUERY_JS {"query.js", query_js, sizeof(query_js) - 1},
#else
#define QUERY_JS
#endif

#if __has_embed("../../web/sdk/references.js")
static const unsigned char references_js[] = {
#embed "../../web/sdk/references.js" suffix(,)
    0};
#define REFERENCES_JS {"references.js", references_js, sizeof(references_js) - 1},
#else
#define REFERENCES_JS
#endif

#if __has_embed("../../web/sdk/session.js")
static const unsigned char session_js[] = {
#embed "../../web/sdk/session.js" suffix(,)
    0};
#define SESSION_JS {"session.js", session_js, sizeof(session_js) - 1},
#else
#define SESSION_JS
#endif

#if __has_embed("../../web/sdk/sse.js")
static const unsigned char sse_js[] = {
#embed "../../web/sdk/sse.js" suffix(,)
    0};
#define SSE_JS {"sse.js", sse_js, sizeof(sse_js) - 1},
#else
#define SSE_JS
#endif

#if __has_embed("../../web/sdk/transport.js")
static const unsigned char transport_js[] = {
#embed "../../web/sdk/transport.js" suffix(,)
    0};
#define TRANSPORT_JS {"transport.js", transport_js, sizeof(transport_js) - 1},
#else
#define TRANSPORT_JS
#endif

#if __has_embed("../../web/sdk/values.js")
static const unsigned char values_js[] = {
#embed "../../web/sdk/values.js" suffix(,)
    0};
#define VALUES_JS {"values.js", values_js, sizeof(values_js) - 1},
#else
#define VALUES_JS
#endif

#if __has_embed("../../web/sdk/write-queue.js")
static const unsigned char write_queue_js[] = {
#embed "../../web/sdk/write-queue.js" suffix(,)
    0};
#define WRITE_QUEUE_JS {"write-queue.js", write_queue_js, sizeof(write_queue_js) - 1},
#else
#define WRITE_QUEUE_JS
#endif

#if __has_embed("../../web/sdk/cache.js")
static const unsigned char cache_js[] = {
#embed "../../web/sdk/cache.js" suffix(,)
    0};
#define CACHE_JS {"cache.js", cache_js, sizeof(cache_js) - 1},
#else
#define CACHE_JS
#endif

#if __has_embed("../../web/sdk/credentials.js")
static const unsigned char credentials_js[] = {
#embed "../../web/sdk/credentials.js" suffix(,)
    0};
#define CREDENTIALS_JS {"credentials.js", credentials_js, sizeof(credentials_js) - 1},
#else
#define CREDENTIALS_JS
#endif

#if __has_embed("../../web/sdk/types.js")
static const unsigned char types_js[] = {
#embed "../../web/sdk/types.js" suffix(,)
    0};
#define TYPES_JS {"types.js", types_js, sizeof(types_js) - 1},
#else
#define TYPES_JS
#endif

#if __has_embed("../../web/sdk/unimplemented.js")
static const unsigned char unimplemented_js[] = {
#embed "../../web/sdk/unimplemented.js" suffix(,)
    0};
#define UNIMPLEMENTED_JS {"unimplemented.js", unimplemented_js, sizeof(unimplemented_js) - 1},
#else
#define UNIMPLEMENTED_JS
#endif

static const struct kura_web_sdk_file files[] = {
    KURA_JS KURA_D_TS ACCOUNTS_JS AGGREGATES_JS APP_JS AUTH_JS DATABASE_JS DOCUMENTS_JS
    ERRORS_JS LISTENER_VIEWS_JS LISTENERS_JS OFFLINE_JS QUERY_JS REFERENCES_JS
    SESSION_JS SSE_JS TRANSPORT_JS VALUES_JS WRITE_QUEUE_JS
    CACHE_JS CREDENTIALS_JS TYPES_JS UNIMPLEMENTED_JS
    {0, 0, 0},
};

const struct kura_web_sdk_file *kura_web_sdk_files(void) { return files; }
