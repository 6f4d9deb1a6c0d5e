/*
 * dcp_file.h - the layer files of differential checkpoints (docs/FORMAT.md,
 * "dCP layer file"). A layer holds the header of the checkpoint file it
 * stands for, a block map naming, for every dcp_block_size block of every
 * variable, the layer that holds its newest bytes, and the blocks that
 * changed. Assembling a layer yields the ordinary checkpoint file. Used by
 * the library (stores/dcp.c) and by fti-ckpt.
 */
#ifndef FTI_DCP_FILE_H
#define FTI_DCP_FILE_H

#include <stdint.h>

#include "format/ckpt_file.h"
#include "base/error.h"

#define FTI_DCP_MAGIC "FTIDCP\0\0"
#define FTI_DCP_VERSION 2 /* 2: a variable's checksum in the layer is fti_dcp_var_sum */
#define FTI_DCP_FIXED 128   /* fixed header; the image header follows */
#define FTI_DCP_ENTRY 24    /* one block map entry */

typedef struct fti_dcp_block {
    uint64_t seq;    /* the layer that holds the block */
    uint64_t offset; /* in that layer's file */
    uint64_t hash;   /* XXH3-64 of the block's bytes */
} fti_dcp_block;

typedef struct fti_dcp_layer {
    uint32_t rank;
    uint32_t depth;       /* layers since the full base (0: this is a base) */
    uint64_t seq;
    uint64_t base_seq;    /* seq of the chain's full base */
    uint64_t block_size;
    uint64_t nblocks;
    uint64_t data_offset; /* first block byte of this layer */
    uint64_t data_size;   /* bytes of blocks in this layer */
    fti_file_header image; /* the header of the checkpoint file this layer stands for */
    fti_dcp_block *map;    /* nblocks entries, variables in table order */
    unsigned char *enc;    /* its encoded header region (data_offset bytes), where the
                            * writer keeps it for the next layer's; else NULL */
} fti_dcp_layer;

/* Blocks of a variable of n bytes. */
uint64_t fti_dcp_blocks_of(uint64_t nbytes, uint64_t block_size);

/* A variable's checksum in a layer's image table: XXH3-64 of its n block
 * hashes (little-endian u64, in block order), so writing a layer hashes
 * every byte once. Assembling checks it and writes the whole-variable
 * XXH3-64 of the bytes into the checkpoint file it yields. -1 stands for
 * "out of memory" (returned as an error by the callers). */
int fti_dcp_var_sum(const fti_dcp_block *blocks, uint64_t n, uint64_t *sum);

/* Blocks of every variable of `image` (the map's length). */
uint64_t fti_dcp_count_blocks(const fti_file_header *image, uint64_t block_size);

/* Where the data of a layer with this image and map begins (4 KiB aligned). */
uint64_t fti_dcp_data_offset(const fti_file_header *image, uint64_t nblocks);

/* Serialises the layer's header region (fixed part, image header, map,
 * checksums) into buf (l->data_offset bytes). */
fti_err fti_dcp_encode(const fti_dcp_layer *l, unsigned char **buf);
/* Turns buf, prev's encoded header region, into l's: only the map entries
 * that differ from prev's are encoded again (most of a layer's map where
 * little changed), then the headers and the map's checksum. The same bytes
 * as fti_dcp_encode. -1 (buf untouched) where the two regions are laid out
 * differently (other block count, variable count or data offset), whose
 * padding bytes may differ. */
int fti_dcp_encode_patch(const fti_dcp_layer *l, const fti_dcp_layer *prev, unsigned char *buf);

/* Reads and checks layer `path` (header, image header, map; its length, and
 * that it is rank's layer `seq`). Blocks are checked when assembled. */
fti_err fti_dcp_read(const char *path, int rank, uint64_t seq, fti_dcp_layer *l);

/* Only the fixed header of layer `path` (its checksum, that it is rank's
 * layer `seq`, the file's length): the chain fields without the map, for
 * the callers that need no more (no map in l). */
fti_err fti_dcp_read_fixed(const char *path, int rank, uint64_t seq, fti_dcp_layer *l);

void fti_dcp_layer_free(fti_dcp_layer *l);

/* Whether layer l (read from path) is the one of the checkpoint whose commit
 * has `nonce`: its image header carries it. FTI_E_CORRUPT naming the layer as
 * another job's otherwise. (The layers it builds on need no such check:
 * every block is taken only when its bytes hash to l's map entry.) */
fti_err fti_dcp_check_owner(const fti_dcp_layer *l, const char *path, uint64_t nonce);

/* Writes the checkpoint file that layer `seq` of rank stands for (from the
 * layers in dir) to fd: every block checked against its map hash, every
 * variable's block hashes against its layer checksum (fti_dcp_var_sum);
 * the file gets the whole-variable checksums of the bytes, which the caller
 * verifies (fti_file_verify) as for any checkpoint file. */
fti_err fti_dcp_assemble(const char *dir, int rank, uint64_t seq, int fd, const char *out_name);

#endif /* FTI_DCP_FILE_H */
