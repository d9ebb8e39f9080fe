// The Secret Service through libsecret, loaded with dlopen on first use (as libarchive is):
// the keyring is optional, so a machine without libsecret (a server, a container) still runs
// brados, and only `credentials.store = keyring` says it cannot. The few GLib types the calls
// need are declared here, from their public, stable layouts: no development headers at build.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CSecretLoader.h"
#include "CLoadOnce.h"

// The versioned soname only (CLoadOnce.h says why).
#define LIBSECRET_SONAME "libsecret-1.so.0"

// Packaging makes libsecret a Recommends of the .deb.
BRADOS_DLOPEN_NOTE("[{\"feature\":\"keyring\",\"description\":\"credentials in the system keyring (Secret Service)\","
                   "\"priority\":\"recommended\",\"soname\":[\"" LIBSECRET_SONAME "\"]}]");

// GLib and libsecret, as far as brados uses them.
typedef struct { uint32_t domain; int32_t code; char *message; } GError;
typedef struct GList { void *data; struct GList *next, *prev; } GList;
typedef struct GHashTable GHashTable;
typedef struct { const char *name; int32_t type; } SecretSchemaAttribute;  // type 0: string
typedef struct {
    const char *name;
    int32_t flags;
    SecretSchemaAttribute attributes[32];
    int32_t reserved;
    void *reserved1, *reserved2, *reserved3, *reserved4, *reserved5, *reserved6, *reserved7;
} SecretSchema;

enum { SECRET_SCHEMA_DONT_MATCH_NAME = 1 << 1 };
enum { SECRET_SEARCH_ALL = 1 << 1 };
enum { SECRET_ERROR_IS_LOCKED = 2 };

// Matched by attributes alone (DONT_MATCH_NAME), so an item `secret-tool store` makes under
// brados's attributes is found as well as brados's own.
static const SecretSchema schema = {
    "org.brados.Credential", SECRET_SCHEMA_DONT_MATCH_NAME,
    {{"application", 0}, {"profile", 0}, {"service", 0}, {"attachment", 0}, {NULL, 0}},
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

static brados_library libsecret = BRADOS_LIBRARY(LIBSECRET_SONAME);

const char *csecret_load_error(void) { return brados_library_error(&libsecret); }

// A function of libsecret or of the GLib it links (dlsym searches a library's dependencies).
static void *symbol(const char *name) { return brados_library_symbol(&libsecret, name); }

#define FUNCTION(ret, name, params)                                     \
    static ret(*name##_fn(void)) params {                               \
        static ret(*volatile fn) params;                                \
        if (fn == NULL) fn = (ret(*) params)symbol(#name);              \
        return fn;                                                      \
    }

FUNCTION(int, secret_password_storev_sync, (const SecretSchema *, GHashTable *, const char *, const char *, const char *, void *, GError **))
FUNCTION(GList *, secret_password_searchv_sync, (const SecretSchema *, GHashTable *, int, void *, GError **))
FUNCTION(int, secret_password_clearv_sync, (const SecretSchema *, GHashTable *, void *, GError **))
FUNCTION(GHashTable *, secret_retrievable_get_attributes, (void *))
FUNCTION(void *, secret_retrievable_retrieve_secret_sync, (void *, void *, GError **))
FUNCTION(const char *, secret_value_get_text, (void *))
FUNCTION(void, secret_value_unref, (void *))
FUNCTION(GHashTable *, g_hash_table_new, (unsigned (*)(const void *), int (*)(const void *, const void *)))
FUNCTION(int, g_hash_table_insert, (GHashTable *, void *, void *))
FUNCTION(void *, g_hash_table_lookup, (GHashTable *, const void *))
FUNCTION(void, g_hash_table_unref, (GHashTable *))
FUNCTION(unsigned, g_str_hash, (const void *))
FUNCTION(int, g_str_equal, (const void *, const void *))
FUNCTION(void, g_error_free, (GError *))
FUNCTION(const char *, g_quark_to_string, (uint32_t))
FUNCTION(void, g_list_free_full, (GList *, void (*)(void *)))
FUNCTION(void, g_object_unref, (void *))
FUNCTION(unsigned, g_hash_table_size, (GHashTable *))
FUNCTION(int, secret_item_delete_sync, (void *, void *, GError **))

// Whether every function is there (a libsecret older than 0.19 has no search).
static int loaded(char **message) {
    if (secret_password_storev_sync_fn() && secret_password_searchv_sync_fn() && secret_password_clearv_sync_fn()
        && secret_retrievable_get_attributes_fn() && secret_retrievable_retrieve_secret_sync_fn() && secret_value_get_text_fn()
        && secret_value_unref_fn() && g_hash_table_new_fn() && g_hash_table_insert_fn() && g_hash_table_lookup_fn()
        && g_hash_table_unref_fn() && g_str_hash_fn() && g_str_equal_fn() && g_error_free_fn() && g_quark_to_string_fn()
        && g_list_free_full_fn() && g_object_unref_fn() && g_hash_table_size_fn() && secret_item_delete_sync_fn())
        return 1;
    const char *reason = csecret_load_error();
    *message = strdup(reason != NULL ? reason : LIBSECRET_SONAME " lacks the functions brados calls (libsecret 0.19 or later is needed)");
    return 0;
}

static GHashTable *attributes(const char *const *values) {
    GHashTable *table = g_hash_table_new_fn()(g_str_hash_fn(), g_str_equal_fn());
    for (int index = 0; index < CSECRET_ATTRIBUTES; index++)
        if (values[index] != NULL) g_hash_table_insert_fn()(table, (void *)schema.attributes[index].name, (void *)values[index]);
    return table;
}

// What a GError says, as a status and a message (and frees it).
static csecret_status failure(GError *error, char **message) {
    if (error == NULL) {
        *message = strdup("the keyring failed without saying why");
        return CSECRET_FAILED;
    }
    const char *domain = g_quark_to_string_fn()(error->domain);
    csecret_status status = CSECRET_FAILED;
    if (domain != NULL && strcmp(domain, "secret-error") == 0 && error->code == SECRET_ERROR_IS_LOCKED) status = CSECRET_LOCKED;
    else if (domain != NULL && (strcmp(domain, "g-io-error-quark") == 0 || strcmp(domain, "g-dbus-error-quark") == 0))
        status = CSECRET_NO_SERVICE;
    *message = strdup(error->message != NULL ? error->message : "the keyring failed");
    g_error_free_fn()(error);
    return status;
}

// The Secret Service replaces an item only when every attribute is the same, and libsecret
// adds `xdg:schema` to brados's: an item made by hand with the same attributes (`secret-tool
// store`) would stay beside the one just stored, and a search could return the old secret.
// After a store, items with exactly `values` and another schema (or none) are deleted.
static void remove_others(const char *const *values) {
    unsigned wanted = 0;
    for (int index = 0; index < CSECRET_ATTRIBUTES; index++) wanted += values[index] != NULL;
    GHashTable *table = attributes(values);
    GError *error = NULL;
    GList *items = secret_password_searchv_sync_fn()(&schema, table, SECRET_SEARCH_ALL, NULL, &error);
    g_hash_table_unref_fn()(table);
    if (error != NULL) {
        g_error_free_fn()(error);
        return;
    }
    for (GList *item = items; item != NULL; item = item->next) {
        GHashTable *found = secret_retrievable_get_attributes_fn()(item->data);
        if (found == NULL) continue;
        const char *kind = g_hash_table_lookup_fn()(found, "xdg:schema");
        unsigned size = g_hash_table_size_fn()(found) - (kind != NULL);
        int same = size == wanted && (kind == NULL || strcmp(kind, schema.name) != 0);
        for (int index = 0; same && index < CSECRET_ATTRIBUTES; index++) {
            const char *value = g_hash_table_lookup_fn()(found, schema.attributes[index].name);
            same = values[index] == NULL ? value == NULL : value != NULL && strcmp(value, values[index]) == 0;
        }
        g_hash_table_unref_fn()(found);
        GError *failed = NULL;
        if (same && !secret_item_delete_sync_fn()(item->data, NULL, &failed) && failed != NULL) g_error_free_fn()(failed);
    }
    if (items != NULL) g_list_free_full_fn()(items, g_object_unref_fn());
}

csecret_status csecret_store(const char *label, const char *const *values, const char *secret, char **message) {
    *message = NULL;
    if (!loaded(message)) return CSECRET_NO_LIBRARY;
    GHashTable *table = attributes(values);
    GError *error = NULL;
    int stored = secret_password_storev_sync_fn()(&schema, table, NULL, label, secret, NULL, &error);
    g_hash_table_unref_fn()(table);
    if (!stored) return failure(error, message);
    remove_others(values);
    return CSECRET_OK;
}

csecret_status csecret_search(const char *const *values, csecret_item_callback callback, void *context, char **message) {
    *message = NULL;
    if (!loaded(message)) return CSECRET_NO_LIBRARY;
    GHashTable *table = attributes(values);
    GError *error = NULL;
    GList *items = secret_password_searchv_sync_fn()(&schema, table, SECRET_SEARCH_ALL, NULL, &error);
    g_hash_table_unref_fn()(table);
    if (error != NULL) return failure(error, message);
    for (GList *item = items; item != NULL; item = item->next) {
        GHashTable *found = secret_retrievable_get_attributes_fn()(item->data);
        const char *found_values[CSECRET_ATTRIBUTES];
        for (int index = 0; index < CSECRET_ATTRIBUTES; index++)
            found_values[index] = found != NULL ? g_hash_table_lookup_fn()(found, schema.attributes[index].name) : NULL;
        GError *unreadable = NULL;
        void *value = secret_retrievable_retrieve_secret_sync_fn()(item->data, NULL, &unreadable);
        if (unreadable != NULL) g_error_free_fn()(unreadable);
        callback(context, found_values, value != NULL ? secret_value_get_text_fn()(value) : NULL);
        if (value != NULL) secret_value_unref_fn()(value);
        if (found != NULL) g_hash_table_unref_fn()(found);
    }
    if (items != NULL) g_list_free_full_fn()(items, g_object_unref_fn());
    return CSECRET_OK;
}

csecret_status csecret_clear(const char *const *values, int *removed, char **message) {
    *message = NULL;
    *removed = 0;
    if (!loaded(message)) return CSECRET_NO_LIBRARY;
    GHashTable *table = attributes(values);
    GError *error = NULL;
    int cleared = secret_password_clearv_sync_fn()(&schema, table, NULL, &error);
    g_hash_table_unref_fn()(table);
    if (error != NULL) return failure(error, message);
    *removed = cleared;
    return CSECRET_OK;
}
