#ifndef FASTGET_CLINUX_SHIM_H
#define FASTGET_CLINUX_SHIM_H

// fallocate(2) is declared by glibc only under _GNU_SOURCE, which must not be defined in a header
// that shares a translation unit with OpenSSL (fd_set mismatch). Declare it by hand.
#include <sys/types.h>
#include <linux/falloc.h>

extern int fallocate(int fd, int mode, off_t offset, off_t len);

extern int sync_file_range(int fd, off_t offset, off_t nbytes, unsigned int flags);

/// Starts writeback of a byte range without waiting for it (SYNC_FILE_RANGE_WRITE).
static inline int fastget_start_writeback(int fd, off_t offset, off_t length) {
    return sync_file_range(fd, offset, length, 2 /* SYNC_FILE_RANGE_WRITE */);
}

static inline int fastget_fallocate(int fd, off_t offset, off_t len) {
    return fallocate(fd, 0, offset, len);
}

#endif
