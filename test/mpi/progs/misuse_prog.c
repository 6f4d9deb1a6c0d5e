/*
 * misuse_prog - API misuse must give a clear error and lose nothing.
 *   misuse_prog CONFIG misuse   wrong calls around one good checkpoint
 *   misuse_prog CONFIG check    that checkpoint restores
 * Prints "expect <what>: ok|WRONG (<code>)" per check; exits 1 on any WRONG.
 */
#include <fti.h>
#include <stdio.h>
#include <string.h>

static int wrong;

static void expect(const char *what, int got, int want)
{
    printf("expect %s: %s (%d)\n", what, got == want ? "ok" : "WRONG", got);
    wrong |= got != want;
}

static void misuse(const char *cfg)
{
    int x = 42, y = 0;
    double d = 1.5;
    expect("status before init", FTI_Status(), 0);
    expect("protect before init", FTI_Protect(0, &x, 1, FTI_INTG), FTI_NSCS);
    expect("checkpoint before init", FTI_Checkpoint(1, 1), FTI_NSCS);
    expect("snapshot before init", FTI_Snapshot(), FTI_NSCS);
    expect("init", FTI_Init(cfg, MPI_COMM_WORLD), FTI_SCES);
    /* FTI's cornerCases suite expects success and an unchanged library */
    expect("init twice", FTI_Init(cfg, MPI_COMM_WORLD), FTI_SCES);
    expect("protect NULL with count 5", FTI_Protect(0, NULL, 5, FTI_INTG), FTI_NSCS);
    expect("protect negative count", FTI_Protect(1, &y, -1, FTI_INTG), FTI_NSCS);
    expect("protect unknown type", FTI_Protect(1, &y, 1, 999), FTI_NSCS);
    expect("protect good", FTI_Protect(2, &x, 1, FTI_INTG), FTI_SCES);
    expect("protect same id, other type", FTI_Protect(2, &d, 1, FTI_DBLE), FTI_NSCS);
    FTIT_attribute dims33 = {.dim = {33, {0}}}, dimsneg = {.dim = {-1, {0}}};
    expect("attribute with 33 dimensions", FTI_SetAttribute(2, dims33, FTI_ATTRIBUTE_DIM),
           FTI_NSCS);
    expect("attribute with -1 dimensions", FTI_SetAttribute(2, dimsneg, FTI_ATTRIBUTE_DIM),
           FTI_NSCS);
    expect("checkpoint level 0", FTI_Checkpoint(1, 0), FTI_NSCS);
    expect("checkpoint level 9", FTI_Checkpoint(1, 9), FTI_NSCS);
    expect("recover on a fresh start", FTI_Recover(), FTI_NREC);
    expect("recover unprotected var", FTI_RecoverVar(77), FTI_NSCS);
    expect("add ICP var outside ICP", FTI_AddVarICP(2), FTI_NSCS);
    expect("checkpoint good", FTI_Checkpoint(5, 1), FTI_DONE);
    x = -1; /* the committed value stays 42 */
    expect("finalize", FTI_Finalize(), FTI_SCES);
    expect("finalize twice", FTI_Finalize(), FTI_NSCS);
    expect("protect after finalize", FTI_Protect(2, &x, 1, FTI_INTG), FTI_NSCS);
}

static void check(const char *cfg)
{
    int x = 0;
    expect("init", FTI_Init(cfg, MPI_COMM_WORLD), FTI_SCES);
    expect("status on restart", FTI_Status(), 2); /* FTI: keep_last_ckpt kept it at FTI_Finalize */
    expect("protect", FTI_Protect(2, &x, 1, FTI_INTG), FTI_SCES);
    expect("recover", FTI_Recover(), FTI_SCES);
    expect("restored value", x, 42);
    FTI_Finalize();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc == 3 && strcmp(argv[2], "misuse") == 0)
        misuse(argv[1]);
    else if (argc == 3)
        check(argv[1]);
    MPI_Finalize();
    return wrong;
}
