// The admin console's files (web/console/), compiled into the binary with C23's #embed like the browser SDK
// (kura_web_sdk.c): editing web/console/* rebuilds this file and nothing else. A new file in web/console/ needs
// its block here and its entry in the table; KuraServerTests' ConsoleTests fails until it has them.
#pragma clang diagnostic ignored "-Wc23-extensions"
#include "kura_web_sdk.h"

#if __has_embed("../../web/console/index.html")
static const unsigned char console_index_html[] = {
#embed "../../web/console/index.html" suffix(,)
    0};
#define CONSOLE_INDEX_HTML {"index.html", console_index_html, sizeof(console_index_html) - 1},
#else
#define CONSOLE_INDEX_HTML
#endif

#if __has_embed("../../web/console/console.css")
static const unsigned char console_console_css[] = {
#embed "../../web/console/console.css" suffix(,)
    0};
#define CONSOLE_CONSOLE_CSS {"console.css", console_console_css, sizeof(console_console_css) - 1},
#else
#define CONSOLE_CONSOLE_CSS
#endif

#if __has_embed("../../web/console/console.js")
static const unsigned char console_console_js[] = {
#embed "../../web/console/console.js" suffix(,)
    0};
#define CONSOLE_CONSOLE_JS {"console.js", console_console_js, sizeof(console_console_js) - 1},
#else
#define CONSOLE_CONSOLE_JS
#endif

#if __has_embed("../../web/console/api.js")
static const unsigned char console_api_js[] = {
#embed "../../web/console/api.js" suffix(,)
    0};
#define CONSOLE_API_JS {"api.js", console_api_js, sizeof(console_api_js) - 1},
#else
#define CONSOLE_API_JS
#endif

#if __has_embed("../../web/console/i18n.js")
static const unsigned char console_i18n_js[] = {
#embed "../../web/console/i18n.js" suffix(,)
    0};
#define CONSOLE_I18N_JS {"i18n.js", console_i18n_js, sizeof(console_i18n_js) - 1},
#else
#define CONSOLE_I18N_JS
#endif

#if __has_embed("../../web/console/users.js")
static const unsigned char console_users_js[] = {
#embed "../../web/console/users.js" suffix(,)
    0};
#define CONSOLE_USERS_JS {"users.js", console_users_js, sizeof(console_users_js) - 1},
#else
#define CONSOLE_USERS_JS
#endif

#if __has_embed("../../web/console/data.js")
static const unsigned char console_data_js[] = {
#embed "../../web/console/data.js" suffix(,)
    0};
#define CONSOLE_DATA_JS {"data.js", console_data_js, sizeof(console_data_js) - 1},
#else
#define CONSOLE_DATA_JS
#endif

#if __has_embed("../../web/console/rules.js")
static const unsigned char console_rules_js[] = {
#embed "../../web/console/rules.js" suffix(,)
    0};
#define CONSOLE_RULES_JS {"rules.js", console_rules_js, sizeof(console_rules_js) - 1},
#else
#define CONSOLE_RULES_JS
#endif

#if __has_embed("../../web/console/more.js")
static const unsigned char console_more_js[] = {
#embed "../../web/console/more.js" suffix(,)
    0};
#define CONSOLE_MORE_JS {"more.js", console_more_js, sizeof(console_more_js) - 1},
#else
#define CONSOLE_MORE_JS CONSOLE_TYPED_JSON_JS
#endif

#if __has_embed("../../web/console/typed-json.js")
static const unsigned char console_typed_json_js[] = {
#embed "../../web/console/typed-json.js" suffix(,)
    0};
#define CONSOLE_TYPED_JSON_JS {"typed-json.js", console_typed_json_js, sizeof(console_typed_json_js) - 1},
#else
#define CONSOLE_TYPED_JSON_JS
#endif

#if __has_embed("../../web/console/traffic.js")
static const unsigned char console_traffic_js[] = {
#embed "../../web/console/traffic.js" suffix(,)
    0};
#define CONSOLE_TRAFFIC_JS {"traffic.js", console_traffic_js, sizeof(console_traffic_js) - 1},
#else
#define CONSOLE_TRAFFIC_JS
#endif

static const struct kura_web_sdk_file files[] = {
    CONSOLE_INDEX_HTML CONSOLE_CONSOLE_CSS CONSOLE_CONSOLE_JS CONSOLE_API_JS CONSOLE_I18N_JS CONSOLE_USERS_JS CONSOLE_DATA_JS CONSOLE_RULES_JS CONSOLE_MORE_JS CONSOLE_TYPED_JSON_JS CONSOLE_TRAFFIC_JS
    {0, 0, 0},
};

const struct kura_web_sdk_file *kura_console_files(void) { return files; }
