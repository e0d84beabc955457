#ifndef KURA_WEB_SDK_H
#define KURA_WEB_SDK_H
#include <stddef.h>

/// One file of the browser SDK, as it was in web/sdk/ when the binary was built.
struct kura_web_sdk_file {
    /// The file name (`kura.js`); NULL in the entry that ends the table.
    const char *name;
    const unsigned char *bytes;
    size_t size;
};

/// Every embedded file, ended by an entry whose name is NULL.
const struct kura_web_sdk_file *kura_web_sdk_files(void);

/// The admin console's files (web/console/), in the same shape.
const struct kura_web_sdk_file *kura_console_files(void);
#endif
