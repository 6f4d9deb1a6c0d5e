/*
 * conf_getconfig - FTI 1.6's header surface as a program sees it: the
 * constants (checked at compile time against FTI's values), talloc, and
 * FTI_GetConfig's fields, printed as key=value for the script to compare
 * with the config it wrote. Then a checkpoint at FTI_L4_DCP (stored as a
 * full L4 one) shows in the state FTI_GetConfig reports.
 *
 *   conf_getconfig CONFIG     rank 0 prints the fields; every rank prints
 *                             "rank R: ..." lines; exit status = failures
 */
#include <fti.h>
#include <stdio.h>

_Static_assert(FTI_BASE == 990 && FTI_CKTW == 991 && FTI_XORW == 992 && FTI_RSEW == 993 &&
               FTI_PFSW == 994 && FTI_ENDW == 995 && FTI_REJW == 996, "head tokens");
_Static_assert(FTI_L1 == 1 && FTI_L2 == 2 && FTI_L3 == 3 && FTI_L4 == 4 && FTI_L1_DCP == 5 &&
               FTI_L2_DCP == 6 && FTI_L3_DCP == 7 && FTI_L4_DCP == 8 && FTI_L4_H5_SINGLE == 9,
               "level names");
_Static_assert(FTI_IO_POSIX == 1001 && FTI_IO_MPI == 1002 && FTI_IO_FTIFF == 1003 &&
               FTI_IO_HDF5 == 1005, "I/O mode ids");

#define N 1000

static void print_config(const FTIT_allConfiguration *c)
{
    const FTIT_configuration *f = &c->configuration;
    printf("ioMode=%d\ntransferSize=%d\nblockSize=%d\nverbosity=%d\n", f->ioMode,
           f->transferSize, f->blockSize, f->verbosity);
    printf("ckptTag=%d\nstageTag=%d\nfinalTag=%d\ngeneralTag=%d\n", f->ckptTag, f->stageTag,
           f->finalTag, f->generalTag);
    printf("test=%d\nsaveLastCkpt=%d\nkeepL4Ckpt=%d\ndcpBlockSize=%d\ncHostBufSize=%lld\n",
           f->test, f->saveLastCkpt, (int)f->keepL4Ckpt, f->dcpBlockSize,
           (long long)f->cHostBufSize);
    printf("cfgFile=%s\nlocalDir=%s\nglbalDir=%s\nmetadDir=%s\n", f->cfgFile, f->localDir,
           f->glbalDir, f->metadDir);
    for (int l = 1; l <= 4; l++)
        printf("ckptIntv%d=%d\nisInline%d=%d\n", l, c->checkpoint[l].ckptIntv, l,
               c->checkpoint[l].isInline);
    printf("id=%s\nreco=%d\nsyncIterMax=%d\ninitSCES=%d\n", c->execution.id, c->execution.reco,
           c->execution.syncIterMax, c->execution.initSCES);
    printf("injRank=%d\ninjNumber=%d\ninjFrequency=%d\n", c->injection.rank, c->injection.number,
           c->injection.frequency);
    printf("nbProc=%d\nsplitSize=%d\nnodeSize=%d\ngroupSize=%d\nnbNodes=%d\nnbHeads=%d\n",
           c->topology.nbProc, c->topology.splitSize, c->topology.nodeSize,
           c->topology.groupSize, c->topology.nbNodes, c->topology.nbHeads);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* Before FTI_Init there is nothing to report: all zero, not garbage. */
    FTIT_allConfiguration none = FTI_GetConfig(argv[1], MPI_COMM_WORLD);
    int fails = none.configuration.ioMode != 0 || none.execution.initSCES != 0 ||
                none.topology.nbProc != 0;
    int rc = FTI_Init(argv[1], MPI_COMM_WORLD), rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rc != FTI_SCES) {
        printf("rank %d: FTI_Init returned %d\n", rank, rc);
        MPI_Finalize();
        return 1;
    }
    FTIT_allConfiguration c = FTI_GetConfig(argv[1], FTI_COMM_WORLD);
    if (rank == 0)
        print_config(&c);
    printf("rank %d: splitRank=%d myRank=%d amIaHead=%d groupRank=%d left=%d right=%d\n", rank,
           c.topology.splitRank, c.topology.myRank, c.topology.amIaHead, c.topology.groupRank,
           c.topology.left, c.topology.right);

    double *v = talloc(double, N);
    for (int i = 0; i < N; i++)
        v[i] = rank * 1e6 + i * 0.5;
    FTI_Protect(7, v, N, FTI_DBLE);
    fails += FTI_Checkpoint(1, FTI_L4_DCP) != FTI_DONE;
    c = FTI_GetConfig(argv[1], FTI_COMM_WORLD);
    printf("rank %d: after checkpoint nbVar=%u hasCkpt4=%d failures=%d\n", rank,
           c.execution.nbVar, (int)c.checkpoint[4].hasCkpt, fails);
    free(v);
    FTI_Finalize();
    MPI_Finalize();
    return fails;
}
