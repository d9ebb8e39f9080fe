#include <dlfcn.h>
#include <stdio.h>
#include "CLoadOnce.h"

void *brados_library_handle(brados_library *library) {
    pthread_mutex_lock(&library->lock);
    if (!library->tried) {
        library->tried = 1;
        library->handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
        if (library->handle == NULL) {
            const char *reason = dlerror();
            if (reason != NULL) snprintf(library->error, sizeof library->error, "%s", reason);
            else snprintf(library->error, sizeof library->error, "%s could not be loaded", library->soname);
        }
    }
    void *handle = library->handle;
    pthread_mutex_unlock(&library->lock);
    return handle;
}

const char *brados_library_error(brados_library *library) {
    return brados_library_handle(library) == NULL ? library->error : NULL;
}

void *brados_library_symbol(brados_library *library, const char *name) {
    void *handle = brados_library_handle(library);
    return handle != NULL ? dlsym(handle, name) : NULL;
}
