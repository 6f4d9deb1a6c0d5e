#!/usr/bin/env bash
# FTI's config files read as FTI reads them. Configs written here in the
# shapes of FTI's ITF template, its tutorial configs and its template.ini
# (capitalised keys, [Injection], tag keys, lustre keys, dCP keys while dCP
# is off, [Basic] Transfer_size, the Exec_ID placeholder, inline comments)
# are accepted without a flood of warnings, and FTI_GetConfig reports what
# they say (all zero and an error before FTI_Init). A near-miss key gets one "did you mean" from rank 0 only; a
# config with no level scheduled gets one warning; dcp_block_size = -1 is
# refused once dCP is on.
source "$(dirname "$0")/lib_config.sh"
G="$CPROGS/conformance_prog_conf_getconfig"
R="$CPROGS/conformance_prog_conf_init_rc"

# val KEY: the value rank 0 printed for KEY.
val() { grep -m1 "^$1=" "$T/out" | cut -d= -f2-; }

# expect_val KEY VALUE
expect_val() {
  [ "$(val "$1")" = "$2" ] || { show; fail "$CASE: $1 is '$(val "$1")', expected '$2'"; }
}

# run_getconfig CONFIG WARNINGS: accepted, every rank recovered its L4 (dCP
# name) checkpoint, and exactly WARNINGS warning lines in all.
run_getconfig() {
  run4 "$G" "$1" || { show; fail "$CASE: the job failed"; }
  [ "$(count_in "$T/out" "after checkpoint nbVar=1 hasCkpt4=1 failures=0")" = 4 ] \
    || { show; fail "$CASE: checkpoint/recovery or GetConfig state wrong"; }
  [ "$(count_in "$T/err" "warning:")" = "$2" ] \
    || { show; fail "$CASE: $(count_in "$T/err" "warning:") warnings, expected $2"; }
}

mkdir -p "$T/l" "$T/g" "$T/m"

# -- ITF template shape ---------------------------------------------------------
CASE="ITF template shape"
cat > "$T/itf.cfg" <<CFG
[basic]
node_size                      = 1
group_size                     = 4
ckpt_dir                       = $T/l
glbl_dir                       = $T/g
meta_dir                       = $T/m
ckpt_io                        = 1
ckpt_l1                        = 0
ckpt_l2                        = 0
ckpt_l3                        = 0
ckpt_l4                        = 0
head                           = 0
inline_l2                      = 1
inline_l3                      = 1
inline_l4                      = 1
keep_last_ckpt                 = 0
keep_l4_ckpt                   = 0
verbosity                      = 2
max_sync_intv                  = 256
enable_dcp                     = 0
dcp_mode                       = 1
dcp_block_size                 = -1
dcp_stack_size                 = 5
enable_staging                 = 0
h5_single_file_dir             =
h5_single_file_prefix          =
h5_single_file_keep            = 0
h5_single_file_enable          = 0
h5_single_file_inline          = 1

[restart]
failure                        = 0
exec_id                        = NULL

[injection]
rank                           = 1
number                         = 0
position                       = 3
frequency                      = 0

[advanced]
block_size                     = 512
transfer_size                  = 24
mpi_tag                        = 2612
local_test                     = 1
general_tag                    = 2613
ckpt_tag                       = 712
stage_tag                      = 407
final_tag                      = 3108
fast_forward                   = 1
CFG
run_getconfig "$T/itf.cfg" 1
# the L2/L3 ring of the one group of 4 nodes: FTI's left and right neighbours
for r in 0 1 2 3; do
  grep -q "^rank $r: .* groupRank=$r left=$(( (r + 3) % 4 )) right=$(( (r + 1) % 4 ))$" "$T/out" \
    || { show; fail "$CASE: rank $r's ring neighbours (groupRank, left, right)"; }
done
grep -q "warning: config $T/itf.cfg: no checkpoint level is scheduled" "$T/err" \
  || { show; fail "$CASE: the one warning is not about no level being scheduled"; }
expect_val ioMode 1001
expect_val transferSize $((24 << 20))
expect_val blockSize $((512 << 10))
expect_val generalTag 2613
expect_val ckptTag 712
expect_val stageTag 407
expect_val finalTag 3108
expect_val test 1
expect_val dcpBlockSize -1
expect_val syncIterMax 256
expect_val injRank 1
expect_val ckptIntv1 -1
expect_val nbProc 4
expect_val splitSize 4
expect_val groupSize 4
expect_val cfgFile "$T/itf.cfg"
[ "$(val id)" != NULL ] && [ -n "$(val id)" ] || { show; fail "$CASE: exec_id NULL was taken as an id"; }
expect_val glbalDir "$T/g/$(val id)"
[ "$(count_in "$T/err" "FTI_GetConfig called before a successful FTI_Init")" = 4 ] \
  || { show; fail "$CASE: FTI_GetConfig before FTI_Init did not say so"; }
echo "ok: $CASE"

# -- tutorial shape: capitalised keys, [Basic] Transfer_size, Exec_ID placeholder --
CASE="tutorial shape"
cat > "$T/tutorial.fti" <<CFG
[Basic]
Head = 0
Node_size = 1
Ckpt_dir = $T/l
Glbl_dir = $T/g
Meta_dir = $T/m
Ckpt_L1 = 4
Ckpt_L2 = 0
Ckpt_L3 = 0
Ckpt_L4 = 9
Inline_L2 = 1
Inline_L3 = 1
Inline_L4 = 1
keep_last_ckpt = 0
Group_size = 4
Verbosity = 2
max_sync_intv=512
ckpt_io=1
Transfer_size=16

[Restart]
Failure = 0
Exec_ID = XXXX-XX-XX_XX-XX-XX

[Injection]
rank = 0
number = 0
position = 0
frequency = 0

[Advanced]
Block_size = 1024
Mpi_tag = 2612
Local_test = 1
Transfer_size=32
CFG
run_getconfig "$T/tutorial.fti" 0
expect_val transferSize $((32 << 20))
expect_val ckptIntv1 4
expect_val ckptIntv4 9
expect_val blockSize $((1024 << 10))
[ "$(val id)" != "XXXX-XX-XX_XX-XX-XX" ] || { show; fail "$CASE: the Exec_ID placeholder was taken as an id"; }
[ "$(count_in "$T/err" "\[basic\] transfer_size = 16 ignored, as FTI does")" = 1 ] \
  || { show; fail "$CASE: not one note (rank 0) that [Basic] Transfer_size is ignored"; }
echo "ok: $CASE"

# -- template.ini shape: inline comments, dCP keys off, lustre and tag keys -------
CASE="template.ini shape"
cat > "$T/template.ini" <<CFG
[Basic]
Head = 0
Node_size = 1
Ckpt_dir = $T/l	#node-local storage
Glbl_dir = $T/g 	#parallel file system
Meta_dir = $T/m	#metadata
Ckpt_L1 = 3
Ckpt_L2 = 5
Ckpt_L3 = 7
Ckpt_L4 = 11
Dcp_L4 = 0
Inline_L2 = 1
Inline_L3 = 1
Inline_L4 = 1
keep_last_ckpt = 0
keep_l4_ckpt   = 0
Group_size = 4
max_sync_intv               = 0
ckpt_io                     = 1
Enable_Staging              = 0
Enable_dCP                  = 0
dCP_Mode                    = 0
dCP_Block_Size              = 16384
Verbosity = 2

[Restart]
Failure = 0
Exec_ID = XXXX-XX-XX_XX-XX-XX

[Injection]
rank = 0
number = 0
position = 0
frequency = 0

[Advanced]
Block_size = 1024
Transfer_size = 16
general_tag = 2612
ckpt_tag = 711   
stage_tag = 406
final_tag = 3107
Local_test = 1
lustre_striping_unit        = 4194304
lustre_striping_factor      = -1
lustre_striping_offset      = -1
CFG
run_getconfig "$T/template.ini" 0
expect_val ckptIntv3 7
expect_val syncIterMax 512
expect_val ckptTag 711
# Local_test = 1: rank 0 (node 0) keeps its files under node0/, as FTI does.
expect_val localDir "$T/l/node0/$(val id)"
echo "ok: $CASE"

# -- near-miss keys: one "did you mean" each, from rank 0 only ----------------------
CASE="near-miss keys"
sed -e 's/^glbl_dir .*/&\nglbl_dri = elsewhere/' -e 's/^\[advanced\]/&\nckpt_l1 = 2/' \
  "$T/itf.cfg" > "$T/near.cfg"
run_getconfig "$T/near.cfg" 3
[ "$(count_in "$T/err" "unknown key 'basic:glbl_dri' ignored; did you mean \[basic\] glbl_dir?")" = 1 ] \
  || { show; fail "$CASE: glbl_dri"; }
[ "$(count_in "$T/err" "unknown key 'advanced:ckpt_l1' ignored; did you mean \[basic\] ckpt_l1?")" = 1 ] \
  || { show; fail "$CASE: ckpt_l1 in [advanced]"; }
echo "ok: $CASE"

# -- dcp_block_size = -1 is only fine while dCP is off ----------------------------
CASE="dcp_block_size with dCP on"
sed 's/^enable_dcp .*/enable_dcp = 1/' "$T/itf.cfg" > "$T/dcp.cfg"
run4 "$R" "$T/dcp.cfg" || { show; fail "$CASE: the job failed"; }
[ "$(count_in "$T/out" "FTI_Init returned -1, comm given 1")" = 4 ] || { show; fail "$CASE: accepted"; }
grep -q "\[basic\] dcp_block_size = -1 must be 0 (the default, 64 KiB) or 512-1073741824 bytes when enable_dcp = 1" "$T/err" \
  || { show; fail "$CASE: message"; }
echo "ok: $CASE"
pass "FTI's config shapes are read as FTI reads them"
