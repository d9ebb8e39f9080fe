// The libarchive functions brados uses, loaded with dlopen on first use.
//
// Linking libarchive directly made every brados start load it and what it links: libxml2,
// ICU (30 MB of data), nettle, acl, lzma, lz4, bz2 and zstd. Only `cache export|import|
// verify` and `doctor` need it, so each function here opens the library on its first call
// and forwards. When libarchive is missing, constructors return NULL and others an error,
// which the Swift layer reports as a clear error.
#include <archive.h>
#include <archive_entry.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "CArchiveLoader.h"
#include "CLoadOnce.h"

#define LIBARCHIVE_SONAME "libarchive.so.13"

// Packaging makes libarchive a Depends of the .deb.
BRADOS_DLOPEN_NOTE("[{\"feature\":\"archive\",\"description\":\"cache export, verify and import (tar.gz, tar.zst)\","
                   "\"priority\":\"required\",\"soname\":[\"" LIBARCHIVE_SONAME "\"]}]");

static brados_library libarchive = BRADOS_LIBRARY(LIBARCHIVE_SONAME);

const char *carchive_load_error(void) { return brados_library_error(&libarchive); }

static void *symbol(const char *name) { return brados_library_symbol(&libarchive, name); }

int carchive_available(void) { return brados_library_handle(&libarchive) != NULL; }

#define FORWARD(ret, name, params, args, fallback)              \
    ret name params {                                           \
        static ret(*volatile fn) params;                        \
        if (fn == NULL) fn = (ret(*) params)symbol(#name);      \
        if (fn == NULL) return fallback;                        \
        return fn args;                                         \
    }

#define FORWARD_VOID(name, params, args)                        \
    void name params {                                          \
        static void(*volatile fn) params;                       \
        if (fn == NULL) fn = (void(*) params)symbol(#name);     \
        if (fn != NULL) fn args;                                \
    }

FORWARD(struct archive *, archive_write_new, (void), (), NULL)
FORWARD(int, archive_write_set_format_pax_restricted, (struct archive *a), (a), ARCHIVE_FATAL)
FORWARD(int, archive_write_set_format_option, (struct archive *a, const char *m, const char *o, const char *v), (a, m, o, v), ARCHIVE_FATAL)
FORWARD(int, archive_write_add_filter_zstd, (struct archive *a), (a), ARCHIVE_FATAL)
FORWARD(int, archive_write_add_filter_gzip, (struct archive *a), (a), ARCHIVE_FATAL)
FORWARD(int, archive_write_set_filter_option, (struct archive *a, const char *m, const char *o, const char *v), (a, m, o, v), ARCHIVE_FATAL)
FORWARD(int, archive_write_set_bytes_in_last_block, (struct archive *a, int bytes), (a, bytes), ARCHIVE_FATAL)
FORWARD(int, archive_write_open_fd, (struct archive *a, int fd), (a, fd), ARCHIVE_FATAL)
FORWARD(int, archive_write_open, (struct archive *a, void *c, archive_open_callback *o, archive_write_callback *w, archive_close_callback *cl),
        (a, c, o, w, cl), ARCHIVE_FATAL)
FORWARD(int, archive_write_header, (struct archive *a, struct archive_entry *e), (a, e), ARCHIVE_FATAL)
FORWARD(la_ssize_t, archive_write_data, (struct archive *a, const void *b, size_t n), (a, b, n), -1)
FORWARD(int, archive_write_close, (struct archive *a), (a), ARCHIVE_FATAL)
FORWARD(int, archive_write_free, (struct archive *a), (a), ARCHIVE_FATAL)

FORWARD(struct archive *, archive_read_new, (void), (), NULL)
FORWARD(int, archive_read_support_filter_gzip, (struct archive *a), (a), ARCHIVE_FATAL)
FORWARD(int, archive_read_support_filter_zstd, (struct archive *a), (a), ARCHIVE_FATAL)
FORWARD(int, archive_read_support_format_tar, (struct archive *a), (a), ARCHIVE_FATAL)
FORWARD(int, archive_read_open_fd, (struct archive *a, int fd, size_t block), (a, fd, block), ARCHIVE_FATAL)
FORWARD(int, archive_read_open, (struct archive *a, void *c, archive_open_callback *o, archive_read_callback *r, archive_close_callback *cl),
        (a, c, o, r, cl), ARCHIVE_FATAL)
FORWARD(int, archive_read_next_header, (struct archive *a, struct archive_entry **e), (a, e), ARCHIVE_FATAL)
FORWARD(la_ssize_t, archive_read_data, (struct archive *a, void *b, size_t n), (a, b, n), -1)
FORWARD(int, archive_read_close, (struct archive *a), (a), ARCHIVE_FATAL)
FORWARD(int, archive_read_free, (struct archive *a), (a), ARCHIVE_FATAL)

FORWARD(const char *, archive_error_string, (struct archive *a), (a), "libarchive is not installed")
FORWARD(int, archive_errno, (struct archive *a), (a), -1)
FORWARD(la_int64_t, archive_filter_bytes, (struct archive *a, int n), (a, n), 0)
FORWARD(const char *, archive_version_details, (void), (), NULL)

FORWARD(struct archive_entry *, archive_entry_new, (void), (), NULL)
FORWARD_VOID(archive_entry_free, (struct archive_entry *e), (e))
FORWARD_VOID(archive_entry_copy_pathname, (struct archive_entry *e, const char *p), (e, p))
FORWARD_VOID(archive_entry_copy_symlink, (struct archive_entry *e, const char *p), (e, p))
FORWARD_VOID(archive_entry_copy_hardlink, (struct archive_entry *e, const char *p), (e, p))
FORWARD_VOID(archive_entry_set_size, (struct archive_entry *e, la_int64_t s), (e, s))
FORWARD_VOID(archive_entry_set_filetype, (struct archive_entry *e, unsigned int t), (e, t))
FORWARD_VOID(archive_entry_set_perm, (struct archive_entry *e, __LA_MODE_T m), (e, m))
FORWARD_VOID(archive_entry_set_mtime, (struct archive_entry *e, time_t t, long n), (e, t, n))
FORWARD(const char *, archive_entry_pathname, (struct archive_entry *e), (e), NULL)
FORWARD(const char *, archive_entry_pathname_utf8, (struct archive_entry *e), (e), NULL)
FORWARD(const char *, archive_entry_hardlink, (struct archive_entry *e), (e), NULL)
FORWARD(const char *, archive_entry_symlink, (struct archive_entry *e), (e), NULL)
FORWARD(__LA_MODE_T, archive_entry_filetype, (struct archive_entry *e), (e), 0)
FORWARD(__LA_MODE_T, archive_entry_perm, (struct archive_entry *e), (e), 0)
FORWARD(la_int64_t, archive_entry_size, (struct archive_entry *e), (e), 0)
FORWARD(int, archive_entry_size_is_set, (struct archive_entry *e), (e), 0)
