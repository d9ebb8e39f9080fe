#ifndef BRADOS_CSECRET_LOADER_H
#define BRADOS_CSECRET_LOADER_H

#include <stddef.h>

/// The system keyring (the freedesktop Secret Service, over D-Bus) through libsecret, opened
/// with dlopen on first use: a machine without libsecret still runs brados, and says why the
/// keyring is unavailable.
///
/// Every item brados reads or writes is described by the attributes of one schema, in this
/// order: application, profile, service, attachment (``CSECRET_ATTRIBUTES``). A NULL value
/// leaves an attribute out (of an item stored; of a search, where it then matches any value).

/// How many attributes the schema has.
#define CSECRET_ATTRIBUTES 4

/// Results of the calls below.
typedef enum {
    CSECRET_OK = 0,
    /// libsecret (or GLib) is not installed: see ``csecret_load_error``.
    CSECRET_NO_LIBRARY = 1,
    /// No keyring answered: no D-Bus session bus, or no Secret Service on it.
    CSECRET_NO_SERVICE = 2,
    /// The keyring is locked (and brados never prompts).
    CSECRET_LOCKED = 3,
    /// Any other failure (the message says what).
    CSECRET_FAILED = 4,
} csecret_status;

/// Why libsecret could not be loaded (`dlerror()`), or NULL when it was.
const char *csecret_load_error(void);

/// Stores `secret` (text) with `label` under `values` (``CSECRET_ATTRIBUTES`` of them),
/// replacing an item with the same attributes, in the default collection.
/// On failure `*message` is a malloc'd description (free it with `free`).
csecret_status csecret_store(const char *label, const char *const *values, const char *secret, char **message);

/// Called for each item a search finds: its attribute values (NULL when absent) and its secret
/// (NULL when the item is locked).
typedef void (*csecret_item_callback)(void *context, const char *const *values, const char *secret);

/// Every item whose attributes match `values` (locked ones too, without their secret).
csecret_status csecret_search(const char *const *values, csecret_item_callback callback, void *context, char **message);

/// Removes every item whose attributes match `values`; `*removed` says whether any was.
csecret_status csecret_clear(const char *const *values, int *removed, char **message);

#endif
