#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Write the mail-ready postings to out/: the tree's commits as exported to
# series/, a directory per posting, from the sender and signed off by
# them, with To: (maintainers) and Cc: (reviewers and lists) from the
# tree's get_maintainer.pl on each patch; a cover letter gets those of all
# its posting's patches.  Each patch then passes checkpatch (lib.sh
# checkpatch_patch, which now requires the Signed-off-by).  Send one
# posting with: git send-email out/NAME/*.patch
#
# A posting's series/NAME/mail, where there is one, changes who gets it;
# its one line (besides # comments) is one of:
#   skip REASON       not written to out/ (make out prints the reason)
#   private ADDRESS   To: ADDRESS, Cc: get_maintainer.pl's maintainers and
#                     reviewers, no list (a report under embargo); make out
#                     says to send it with --suppress-cc=all, as git
#                     send-email would copy a changelog's Cc: stable@
#
# The sender is a person: series/ carries no Signed-off-by, and make out
# refuses an identity that is no one's (harness.py sender: the series'
# placeholder, a no-reply address, a domain reserved for examples and
# tests, anything but one "Name <address>").  It writes into a new
# directory and puts it in out/'s place only when every patch passed, so
# a failed run leaves out/ as it was.  base-commit: still names the
# harness's import of the base tarball: make out says so, every time.
#: KPU_OUT            make out: output directory (default out/)
#: KPU_SENDER         make out: "Name <address>" of who sends and signs off
#:                    (default: git config user.name and user.email)

. "$(dirname "$0")/lib.sh"
need git perl

out=${KPU_OUT:-$TOP/out}
send=${KPU_SENDER:-}
if [ -z "$send" ]; then
	n=$(git -C "$TOP" config user.name || :)
	e=$(git -C "$TOP" config user.email || :)
	send="$n <$e>"
fi
# Who the series' commits are from: the repository's placeholder.
placeholder=$(git -C "$TREE" log -1 --format='%an <%ae>' 2>/dev/null || :)
send=$(harness sender "$send" "$placeholder") || die "make out: no sender, nothing written"

# mail_mode NAME: "list", "skip REASON" or "private ADDRESS", from
# series/NAME/mail; a file that says anything else stops make out before
# it writes anything.
mail_mode() {
	f=$SERIES/$1/mail
	[ -f "$f" ] || { echo list; return; }
	awk -v f="$f" '
		/^[ \t]*(#|$)/ { next }
		{ n++ }
		# Printed as "skip REASON" or "private ADDRESS", one space after
		# the keyword, whatever the file has around it.
		n == 1 && $1 == "skip" && NF > 1 {
			r = $0
			sub(/^[ \t]*skip[ \t]+/, "", r)
			m = "skip " r
			next
		}
		n == 1 && $1 == "private" && NF == 2 &&
			$2 ~ /^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]+$/ {
			m = "private " $2
			next
		}
		{ bad = 1 }
		END {
			if (bad || m == "") {
				print f ": want one line, \"skip REASON\" or \"private ADDRESS\"" >"/dev/stderr"
				exit 1
			}
			print m
		}' "$f"
}
for d in $(postings | awk '{ print $1 }'); do
	mail_mode "$d" >/dev/null || die "make out: nothing written"
done

final=$out
out=$(mktemp -d "${final%/}.new.XXXXXX")
trap 'rm -rf "$out"' EXIT
trap 'exit 1' INT TERM
"$TOP/scripts/export.sh" "$out"

patch_digest "$SERIES" >"$out/.series"
patch_digest "$out" >"$out/.tree"
cmp -s "$out/.series" "$out/.tree" ||
	info "warning: series/ is not the tree's export: run 'make export'"
rm -f "$out/.series" "$out/.tree"

gm() {
	(cd "$TREE" && ./scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-rolestats --no-tree "$@") | paste -s -d, - | sed 's/,/, /g'
}

# Insert To:/Cc: after the Date: header of one patch; Cc: drops whoever
# is in To: already.
headers() {
	awk -v to="$2" -v cc="$3" '
		BEGIN {
			n = split(to, t, ", ")
			for (i = 1; i <= n; i++) seen[t[i]] = 1
			m = split(cc, c, ", ")
			cc = ""
			for (i = 1; i <= m; i++)
				if (!(c[i] in seen))
					cc = cc (cc == "" ? "" : ", ") c[i]
		}
		{ print }
		!done && /^Date: / {
			if (to != "") print "To: " to
			if (cc != "") print "Cc: " cc
			done = 1
		}' "$1" >"$1.tmp" && mv "$1.tmp" "$1"
}

# to_cc FILE MODE PATCH...: FILE's To:/Cc: from get_maintainer.pl on the
# PATCHes, as mail_mode's MODE says.
to_cc() {
	tc_f=$1 tc_m=$2
	shift 2
	case $tc_m in
	private\ *) headers "$tc_f" "${tc_m#private }" "$(gm --m --r --nol "$@")" ;;
	*) headers "$tc_f" "$(gm --m --nor --nol "$@")" "$(gm --nom --r --l "$@")" ;;
	esac
}

total=0 skipped=0 bad='' private=''
for d in $(postings | awk '{ print $1 }'); do
	mode=$(mail_mode "$d")
	case $mode in
	skip\ *)
		rm -rf "${out:?}/$d"
		skipped=$((skipped + 1))
		info "$d: not written, not to be mailed: ${mode#skip }"
		continue ;;
	private\ *)
		private="$private $d" ;;
	esac
	patches=$(posting_patches "$out" "$d")
	# Its cover letter too: From: the sender on every mail.
	harness sender "$send" "$placeholder" "$out/$d"/*.patch >/dev/null
	for p in $patches; do
		total=$((total + 1))
		git interpret-trailers --in-place --where end --if-exists addIfDifferent \
			--trailer "Signed-off-by: $send" "$p"
		to_cc "$p" "$mode" "$p"
		checkpatch_patch "$TREE" "$p" signed >"$p.checkpatch" 2>&1 ||
			bad="$bad ${p#"$out"/}"
		if [ -s "$p.checkpatch" ]; then cat "$p.checkpatch" >&2; fi
		rm -f "$p.checkpatch"
	done
	for cover in "$out/$d"/*0000-cover-letter.patch; do
		[ -f "$cover" ] || continue
		# shellcheck disable=SC2086 # one word per patch
		to_cc "$cover" "$mode" $patches
		# What checkpatch_patch's changelog check refuses, the cover
		# too: the placeholder, editor text.
		harness changelog --signed --placeholder "$placeholder" "$cover" >&2 ||
			bad="$bad ${cover#"$out"/}"
	done
done
[ "$total" -gt 0 ] || { info "nothing to mail ($skipped postings skipped), $final left as it was"; exit 0; }
[ -z "$bad" ] || die "checkpatch on what make out wrote:$bad; $final left as it was"
rm -rf "$final"
mv "$out" "$final"
trap - EXIT
info "mail-ready postings in $final ($total patches in $(($(postings | wc -l) - skipped)) postings), from and signed off by $send"
for d in $private; do
	# A changelog's Cc: stable@ is a list too: git send-email would copy it.
	info "$d is private: send it with git send-email --suppress-cc=all out/$d/*.patch, to no list until its recipients say so"
done
info "warning: base-commit: names the harness's import of the $BASE_TAG tarball: replace it with upstream's commit of $BASE_TAG before mailing"
