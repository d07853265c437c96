#ifndef FASTGET_CLINUX_SHIM_H
#define FASTGET_CLINUX_SHIM_H

// fallocate(2) is declared by glibc only under _GNU_SOURCE, which must not be defined in a header
// that shares a translation unit with OpenSSL (fd_set mismatch). Declare it by hand.
#include <sys/types.h>
#include <linux/falloc.h>
#include <fcntl.h>
#include <sys/xattr.h>

extern int fallocate(int fd, int mode, off_t offset, off_t len);

extern int sync_file_range(int fd, off_t offset, off_t nbytes, unsigned int flags);

/// Starts writeback of a byte range without waiting for it (SYNC_FILE_RANGE_WRITE).
static inline int fastget_start_writeback(int fd, off_t offset, off_t length) {
    return sync_file_range(fd, offset, length, 2 /* SYNC_FILE_RANGE_WRITE */);
}

extern ssize_t splice(int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len, unsigned int flags);

/// splice(2) with SPLICE_F_MOVE | SPLICE_F_MORE; `offset` may be NULL (use the file position).
static inline ssize_t fastget_splice(int from, off_t *from_offset, int to, off_t *to_offset, size_t length) {
    return splice(from, from_offset, to, to_offset, length, 1 /* SPLICE_F_MOVE */ | 4 /* SPLICE_F_MORE */);
}

/// fcntl(F_SETPIPE_SZ): the pipe's capacity in bytes.
static inline int fastget_set_pipe_size(int fd, int size) {
    return fcntl(fd, 1031 /* F_SETPIPE_SZ */, size);
}

/// fcntl(F_GETPIPE_SZ): the pipe's capacity in bytes.
static inline int fastget_pipe_size(int fd) {
    return fcntl(fd, 1032 /* F_GETPIPE_SZ */);
}

static inline int fastget_fallocate(int fd, off_t offset, off_t len) {
    return fallocate(fd, 0, offset, len);
}

extern int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);

/// rename(2) that fails with EEXIST instead of replacing `to` (RENAME_NOREPLACE, relative to
/// the working directory).
static inline int fastget_rename_noreplace(const char *from, const char *to) {
    return renameat2(-100 /* AT_FDCWD */, from, -100 /* AT_FDCWD */, to, 1 /* RENAME_NOREPLACE */);
}

#endif
