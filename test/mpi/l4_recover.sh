#!/usr/bin/env bash
# L4: every node's local storage lost after an L4 checkpoint; each rank's
# file comes back from the global copy, bytes identical. POSIX (ckpt_io=1,
# one file per rank) and MPI-IO (ckpt_io=2, one shared file), each without
# compression, with zlib:1 and with zstd:1. A small transfer_size makes the
# copies and the collective writes take several rounds.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"

# global_magic IO: the first 8 bytes of the global copy of rank 1 (IO 1) or
# of the shared file (IO 2), as text.
global_magic() {
  if [ "$1" = 1 ]; then head -c 7 "$T"/global/*/l4-s0-rank1.fti
  else head -c 7 "$T"/global/*/l4-s0-shared.fti; fi
}

for io in 1 2; do
  for codec in none zlib:1 $(zstd_or_zlib 1); do
    what="ckpt_io=$io l4_compression=$codec"
    rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
    write_config "$T/c.fti" ckpt_io=$io l4_compression=$codec transfer_size=65536
    run_nodes 4 1 "$P" "$T/c.fti" write 7 4 > "$T/out" 2>&1 || { cat "$T/out"; fail "$what: L4 checkpoint"; }
    case "$io/$codec" in
      1/none) [ "$(global_magic 1)" = FTICKPT ] || fail "$what: global copy is not the local file" ;;
      1/*) [ "$(global_magic 1)" = FTIL4Z ] || fail "$what: global copy not compressed" ;;
      2/*) [ "$(global_magic 2)" = FTIL4SH ] || fail "$what: no shared file" ;;
    esac
    [ -z "$(ls "$T"/global/*/ | grep tmp)" ] || fail "$what: temporary files left: $(ls "$T"/global/*/)"
    [ "$(stat -c %a "$T"/global/*/l4-s0-*"$([ "$io" = 1 ] && echo rank0 || echo shared)".fti)" = 600 ] ||
      fail "$what: global file is not private (0600)"

    rm -rf "$T"/nodes/*
    run_nodes 4 1 "$P" "$T/c.fti" check 7 > "$T/out" 2>&1 || { cat "$T/out"; fail "$what: restart"; }
    grep -q "PASS" "$T/out" || { cat "$T/out"; fail "$what: restored bytes"; }
    for n in 0 1 2 3; do
      [ "$(stat -c %a "$T"/nodes/node$n/*/l4-s0-rank$n.fti)" = 600 ] || fail "$what: restored file mode"
    done
    # Only some nodes lost; the restored files serve a second restart as well.
    lose_node 2
    run_nodes 4 1 "$P" "$T/c.fti" check 7 | grep -q PASS || fail "$what: one lost node"
    echo "ok: $what"
  done
done

# Several compression chunks (4 MiB) per rank, uneven sizes across ranks.
rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
write_config "$T/c.fti" ckpt_io=2 l4_compression=$(zstd_or_zlib 3) transfer_size=1048576
run_nodes 4 1 "$P" "$T/c.fti" write 9 4 9000 > "$T/out" 2>&1 || { cat "$T/out"; fail "large L4 checkpoint"; }
rm -rf "$T"/nodes/*
run_nodes 4 1 "$P" "$T/c.fti" check 9 9000 | grep -q PASS || fail "large MPI-IO zstd restore"
pass "l4 recovery from the global copy"
