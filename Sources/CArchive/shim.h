#ifndef BRADOS_CARCHIVE_SHIM_H
#define BRADOS_CARCHIVE_SHIM_H

#include <archive.h>
#include <archive_entry.h>

// libarchive's AE_IF* file-type macros are casts, which Swift does not import.
// Re-export them as typed constants.
static const mode_t CARCHIVE_AE_IFMT = AE_IFMT;
static const mode_t CARCHIVE_AE_IFREG = AE_IFREG;
static const mode_t CARCHIVE_AE_IFLNK = AE_IFLNK;
static const mode_t CARCHIVE_AE_IFSOCK = AE_IFSOCK;
static const mode_t CARCHIVE_AE_IFCHR = AE_IFCHR;
static const mode_t CARCHIVE_AE_IFBLK = AE_IFBLK;
static const mode_t CARCHIVE_AE_IFDIR = AE_IFDIR;
static const mode_t CARCHIVE_AE_IFIFO = AE_IFIFO;

#endif
