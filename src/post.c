#include "post.h"

/* Inline post-processing only, until the asynchronous worker lands. */
int fti_post_async_available(fti_ctx *ctx, int level)
{
    (void)ctx;
    (void)level;
    return 0;
}

fti_err fti_post_start(fti_ctx *ctx, const fti_commit *c)
{
    (void)ctx;
    (void)c;
    return FTI_E_UNSUPPORTED;
}

fti_err fti_post_wait(fti_ctx *ctx)
{
    (void)ctx;
    return FTI_E_OK;
}

fti_err fti_post_poll(fti_ctx *ctx)
{
    (void)ctx;
    return FTI_E_OK;
}

fti_err fti_post_init(fti_ctx *ctx)
{
    (void)ctx;
    return FTI_E_OK;
}

void fti_post_shutdown(fti_ctx *ctx)
{
    (void)ctx;
}

#include "fti.h"

int fti_post_serve_head(fti_ctx *ctx)
{
    (void)ctx;
    return FTI_HEAD;
}
