#!/usr/bin/env bash
# FTI's multiLevelCkpt suite (ckpt_disrupt): after a crash, which damage each
# level survives. Nodes 0 and 2 (non-adjacent) or 0 and 1 (adjacent) of 4,
# group_size 4. Expected as FTI's suite: L1 with lost or corrupt files fails;
# L2 and L3 survive lost or corrupt own files or partner/parity files on two
# non-adjacent nodes and the loss of two non-adjacent nodes; of two adjacent
# nodes lost, L2 fails and L3 (Reed-Solomon) recovers; L4 without its global
# directory fails, as does keep_last_ckpt = 1 once the global copy is gone.
# "Recovers" means every byte restored (exit 0); "fails" means FTI_Init
# refuses the restart (exit 20), never wrong data.
source "$(dirname "$0")/lib_sem.sh"

# files TARGET LEVEL NODE: the files node NODE holds for TARGET (checkpoint:
# its rank's own file; partner: the L2 copy it holds, of the rank before it,
# or its L3 parity file; node: both).
files() {
  local d=("$LOCAL_DIR"/node$3/*/) prev=$(( ($3 + NP - 1) % NP ))
  case "$1" in
    checkpoint) ls "${d[0]}"l$2-s?-rank$3.fti ;;
    partner) if [ "$2" = 2 ]; then ls "${d[0]}"l2-s?-partner-rank$prev.fti; else ls "${d[0]}"l3-s?-parity-rank$3.fti; fi ;;
    node) files checkpoint "$2" "$3"; files partner "$2" "$3" ;;
  esac
}
flip_middle() { python3 -c "import os,sys; p=sys.argv[1]; n=os.path.getsize(p)//2; f=open(p,'r+b'); f.seek(n); b=f.read(1); f.seek(n); f.write(bytes([b[0]^0x5a]))" "$1"; }
disrupt() { # erase|corrupt TARGET LEVEL NODES...
  local how="$1" target="$2" level="$3" n f; shift 3
  for n in "$@"; do
    for f in $(files "$target" "$level" "$n"); do
      if [ "$how" = erase ]; then rm -f "$f"; else flip_middle "$f"; fi
    done
  done
}

# case LEVEL DISRUPT TARGET NODES EXPECT: crash after one checkpoint, damage, restart.
case_() {
  local level="$1" how="$2" target="$3" nodes="$4" expect="$5"
  fresh; sem_config "$T/c.fti"
  expect_exit 0 "$T/w" sem "$T/c.fti" crash 7 $level
  # shellcheck disable=SC2086
  disrupt "$how" "$target" "$level" $nodes
  local want=0; [ "$expect" = success ] || want=20
  expect_exit $want "$T/r" sem "$T/c.fti" check 7
  [ "$want" = 20 ] || grep -q "^PASS: check" "$T/r" || { cat "$T/r"; fail "L$level $how $target $nodes: no PASS"; }
  echo "ok: L$level $how $target nodes '$nodes': $expect"
}

for how in erase corrupt; do case_ 1 $how checkpoint "0 2" fail; done
for level in 2 3; do
  for how in erase corrupt; do
    case_ $level $how checkpoint "0 2" success
    case_ $level $how partner "0 2" success
  done
  case_ $level erase node "0 2" success
done
case_ 2 erase node "0 1" fail
case_ 3 erase node "0 1" success

# L4: the global directory gone
fresh; sem_config "$T/c.fti"
expect_exit 0 "$T/w" sem "$T/c.fti" crash 7 4
rm -rf "$T/global"; mkdir -p "$T/global"
expect_exit 20 "$T/r" sem "$T/c.fti" check 7
# keep_last_ckpt = 1, L1: finalised, then the global directory gone
fresh; sem_config "$T/c.fti" keep_last_ckpt=1
expect_exit 0 "$T/w" sem "$T/c.fti" finish 7 1
rm -rf "$T/global"; mkdir -p "$T/global"
expect_exit 20 "$T/r" sem "$T/c.fti" check 7
pass "multilevel erase/corrupt outcomes as FTI's suite expects"
