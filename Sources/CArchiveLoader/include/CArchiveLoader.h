#ifndef BRADOS_CARCHIVE_LOADER_H
#define BRADOS_CARCHIVE_LOADER_H

/// Whether libarchive could be loaded (it is opened on first use, not at start-up).
int carchive_available(void);

/// Why libarchive could not be loaded (`dlerror()`), or NULL when it was.
const char *carchive_load_error(void);

#endif
