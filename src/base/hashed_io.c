#include "base/hashed_io.h"

#include "base/fio.h"

int fti_pwrite_hashed(int fd, const void *buf, size_t n, off_t off, fti_hash *h)
{
    const char *p = buf;
    for (size_t done = 0; done < n;) {
        size_t len = n - done < FTI_HASH_PIECE ? n - done : FTI_HASH_PIECE;
        if (h != NULL)
            fti_hash_update(h, p + done, len); /* brings the piece into cache for the write */
        if (fti_pwrite_full(fd, p + done, len, off + (off_t)done) != 0)
            return -1;
        done += len;
    }
    return 0;
}

int fti_pread_hashed(int fd, void *buf, size_t n, off_t off, fti_hash *h)
{
    char *p = buf;
    for (size_t done = 0; done < n;) {
        size_t len = n - done < FTI_HASH_PIECE ? n - done : FTI_HASH_PIECE;
        if (fti_pread_full(fd, p + done, len, off + (off_t)done) != 0)
            return -1;
        if (h != NULL)
            fti_hash_update(h, p + done, len); /* the piece the kernel just wrote, still in cache */
        done += len;
    }
    return 0;
}
