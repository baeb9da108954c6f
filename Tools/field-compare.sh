#!/usr/bin/env bash
# A field test: gitwire used the way people use git, side by side with git on identical copies.
#
# Every scenario runs twice on the same paths, in a temporary HOME with a realistic ~/.gitconfig
# (insteadOf/pushInsteadOf, http.<url>.*, a credential helper, includeIf, core.sshCommand, ...):
# once with git, once with gitwire, each on a fresh copy of the same fixture (clones with
# unpushed commits and dirty work trees, linked work trees, a non-bare remote, an upstream that
# moved on). It compares standard output, standard error, the exit status and the resulting
# state: refs and symbolic refs, packed-refs, FETCH_HEAD, config, reflogs (times masked), shallow,
# lock files, the reachable objects, `git fsck`, and work-tree status. It prints a table
# scenario / same-as-git / notes, and keeps every output under $FIELD_OUT (default
# .build/field) for reading the differences (`diff -r <scenario>/git <scenario>/gitwire`).
#
# Where gitwire by design does something else, the git side runs what gitwire stands for:
# gitwire never checks out files, so a non-bare clone is compared with `git clone --no-checkout`.
#
# Usage: Tools/field-compare.sh [<scenario-pattern>]    (GITWIRE=<binary> skips the build)
set -uo pipefail
source "$(dirname "$0")/lib.sh"
build_gitwire
gw=$gitwire
pattern=${1:-.}
out=${FIELD_OUT:-$root/.build/field}
rm -rf "$out"
mkdir -p "$out"
start_work field
# The user's configuration, not the benchmarks' empty one.
unset GIT_CONFIG_GLOBAL GIT_DIR GIT_WORK_TREE GIT_SSH GIT_SSH_COMMAND GIT_ASKPASS SSH_ASKPASS
export GIT_CONFIG_NOSYSTEM=1 HOME=$work/run/home XDG_CONFIG_HOME=$work/run/home/.config
export GIT_TERMINAL_PROMPT=0 LC_ALL=C TZ=UTC
export GIT_AUTHOR_NAME=Field GIT_AUTHOR_EMAIL=field@example.com
export GIT_COMMITTER_NAME=Field GIT_COMMITTER_EMAIL=field@example.com

base=$work/base
run=$work/run
mkdir -p "$base/home" "$base/bin"

commit() { # commit <repo> <file> <text> [branch]
    printf '%s\n' "$3" >"$1/$2"
    git -C "$1" add "$2" && git -C "$1" commit -q -m "$3"
}

# ---------------------------------------------------------------------------------------------
# The fixture, made once: $base is copied to $run before every side of every scenario, so both
# sides find the same paths (worktrees and configs hold absolute paths).
# ---------------------------------------------------------------------------------------------
make_fixture() {
    local w=$run
    rm -rf "$run"
    mkdir -p "$run/home" "$run/bin"
    git init -q -b main "$w/seed"
    commit "$w/seed" a.txt one
    commit "$w/seed" a.txt two
    git -C "$w/seed" tag -a -m v1 v1.0
    git -C "$w/seed" branch feature
    git -C "$w/seed" branch wip/x
    git -C "$w/seed" branch old
    git -C "$w/seed" checkout -q feature
    commit "$w/seed" f.txt feat
    git -C "$w/seed" checkout -q main
    # Some bulk, so that packs are more than a few objects.
    for i in $(seq 1 30); do head -c 2000 /dev/urandom | base64 >"$w/seed/bulk$i"; done
    git -C "$w/seed" add . && git -C "$w/seed" commit -q -m bulk
    git clone -q --bare "$w/seed" "$w/up.git"
    git clone -q --bare "$w/seed" "$w/second.git"

    # The user's clone: unpushed commits, a dirty work tree, linked work trees.
    git clone -q "$w/up.git" "$w/repo"
    git -C "$w/repo" checkout -q -b local-only
    commit "$w/repo" mine.txt unpushed
    git -C "$w/repo" checkout -q main
    commit "$w/repo" main-local.txt "unpushed on main"
    printf 'dirty\n' >>"$w/repo/a.txt"
    printf 'untracked\n' >"$w/repo/untracked.txt"
    git -C "$w/repo" branch --track feature origin/feature
    git -C "$w/repo" worktree add -q "$w/wt-feature" feature
    git -C "$w/repo" worktree add -q --detach "$w/wt-detached" origin/main
    mkdir -p "$w/repo/sub/dir"
    printf 'x\n' >"$w/repo/sub/dir/file"
    git -C "$w/repo" remote add second "$w/second.git"
    git -C "$w/repo" fetch -q second

    # A non-bare remote with main checked out, for pushes.
    git clone -q "$w/up.git" "$w/nonbare"

    # The upstream moves on: main fast-forwards, feature is rewritten, old is deleted, a new
    # branch and a new tag appear, wip/x moves.
    git clone -q "$w/up.git" "$w/pusher"
    commit "$w/pusher" a.txt three
    git -C "$w/pusher" checkout -q feature
    git -C "$w/pusher" reset -q --hard HEAD~1
    commit "$w/pusher" g.txt rewritten
    git -C "$w/pusher" checkout -q -b newbranch
    commit "$w/pusher" n.txt new
    git -C "$w/pusher" checkout -q wip/x
    commit "$w/pusher" w.txt wip
    git -C "$w/pusher" tag -a -m v2 v2.0 main
    git -C "$w/pusher" tag light main~1
    git -C "$w/pusher" push -q -f origin main feature newbranch wip/x v2.0 light :old 2>/dev/null
    rm -rf "$w/pusher" "$w/seed"

    # A fake ssh for core.sshCommand: runs the remote command locally, logging its arguments.
    cat >"$w/bin/fake-ssh" <<'EOF'
#!/bin/sh
printf '%s\n' "$*" >>"$HOME/ssh.log"
while [ $# -gt 1 ]; do shift; done
exec sh -c "$1"
EOF
    chmod +x "$w/bin/fake-ssh"
    # A scripted credential helper that logs the operations it is asked for.
    cat >"$w/bin/cred-helper" <<'EOF'
#!/bin/sh
echo "$1" >>"$HOME/cred.log"
if [ "$1" = get ]; then printf 'username=gitwire\npassword=secret\n'; fi
EOF
    chmod +x "$w/bin/cred-helper"

    cat >"$run/home/.gitconfig" <<EOF
[user]
	name = Field
	email = field@example.com
[init]
	defaultBranch = main
[url "file://$w/"]
	insteadOf = up:
[url "file://$w/nonbare"]
	pushInsteadOf = nb:
[http "http://127.0.0.1/"]
	extraHeader = X-Field: yes
[credential]
	helper = $w/bin/cred-helper
[core]
	sshCommand = $w/bin/fake-ssh
[includeIf "gitdir:$w/repo/"]
	path = $w/home/repo.inc
[protocol "file"]
	allow = always
[advice]
	detachedHead = false
EOF
    cat >"$run/home/repo.inc" <<EOF
[fetch]
	showForcedUpdates = true
[url "file://$w/"]
	insteadOf = inc:
EOF
    rm -rf "$base"
    cp -a "$run" "$base"
}

# ---------------------------------------------------------------------------------------------
# What a scenario leaves, as text.
# ---------------------------------------------------------------------------------------------
dump_repo() { # dump_repo <git dir>
    local d=$1
    [ -e "$d" ] || { echo "(absent: $d)"; return; }
    echo "## refs"
    git --git-dir="$d" for-each-ref --format='%(objectname) %(refname) %(symref)' 2>&1
    echo "## HEAD"; cat "$d/HEAD" 2>&1
    for f in packed-refs FETCH_HEAD config shallow refs/remotes/origin/HEAD; do
        echo "## $f"; [ -f "$d/$f" ] && cat "$d/$f"
    done
    echo "## loose refs"; (cd "$d" && find refs -type f 2>/dev/null | sort)
    echo "## reflogs"
    (cd "$d" && find logs -type f 2>/dev/null | sort | while read -r f; do
        echo "# $f"
        sed -E 's/> [0-9]+ [+-][0-9]{4}(	|$)/> T\1/' "$f"
    done)
    echo "## leftovers"; (cd "$d" && find . \( -name '*.lock' -o -name 'tmp_*' -o -name '*.tmp' \) | sort)
    echo "## objects"; git --git-dir="$d" rev-list --objects --all 2>&1 | sort | md5sum
    echo "## fsck"; git --git-dir="$d" fsck --full --no-dangling 2>&1 | grep -v '^Checking\|^notice' | head -5
    if [ -d "$d/worktrees" ]; then
        echo "## worktrees"
        for t in "$d"/worktrees/*; do echo "# $t"; cat "$t/HEAD"; done
    fi
}

dump_files() { # the files of a git directory but objects, refs, logs: type, mode, bytes
    local d=$1
    echo "## files $d"
    [ -e "$d" ] || { echo "(absent)"; return; }
    (cd "$d" && find . \( -path ./objects -o -path ./refs -o -path ./logs \) -prune -o -print | sort |
        while read -r f; do
            if [ -L "$f" ]; then echo "$f link $(readlink "$f")"
            elif [ -d "$f" ]; then echo "$f dir $(stat -c %a "$f")"
            else echo "$f file $(stat -c %a "$f") $(md5sum <"$f" | cut -c1-32)"; fi
        done)
}

dump_tree() { # the work tree's state
    echo "## status $1"
    [ -d "$1" ] && git -C "$1" status --porcelain=v1 --untracked-files=all 2>&1
    [ -d "$1" ] && find "$1" -path "$1/.git" -prune -o -type f -print | sort | xargs -r md5sum
}

# ---------------------------------------------------------------------------------------------
# Running the scenarios.
# ---------------------------------------------------------------------------------------------
results=()
scenario() { # scenario <name> <function> [<note>]: runs <function> with G=git, then G=gitwire
    local name=$1 fn=$2 note=${3:-} side dir
    [[ $name =~ $pattern ]] || return 0
    for side in git gitwire; do
        dir=$out/$name/$side
        mkdir -p "$dir"
        rm -rf "$run"
        cp -a "$base" "$run"
        if [ $side = git ]; then G=git; else G=$gw; fi
        SIDE=$side
        (cd "$run/repo" && "$fn") >"$dir/stdout" 2>"$dir/stderr"
        echo $? >"$dir/status"
        # Paths of the two sides are the same; the binary's name is not.
        sed -i "s|$gw|gitwire|g; s|\bgitwire\b|git|g" "$dir/stderr" "$dir/stdout"
        for d in $(cat "$work/dumps" 2>/dev/null); do dump_repo "$run/$d"; done >"$dir/state" 2>&1
        for d in $(cat "$work/trees" 2>/dev/null); do dump_tree "$run/$d"; done >"$dir/trees" 2>&1
        for d in $(cat "$work/gitfiles" 2>/dev/null); do dump_files "$run/$d"; done >"$dir/files" 2>&1
        rm -f "$work/dumps" "$work/trees" "$work/gitfiles"
        [ -s "$work/http.log" ] && sed -E 's/ agent=.* status=/ status=/' "$work/http.log" >"$dir/http.log"
        : >"$work/http.log"
        [ -f "$run/home/ssh.log" ] && cp "$run/home/ssh.log" "$dir/ssh.log"
        [ -f "$run/home/cred.log" ] && cp "$run/home/cred.log" "$dir/cred.log"
    done
    local differ=() f
    for f in status stdout stderr state trees files ssh.log cred.log http.log; do
        if ! cmp -s "$out/$name/git/$f" "$out/$name/gitwire/$f" 2>/dev/null; then
            if [ -e "$out/$name/git/$f" ] || [ -e "$out/$name/gitwire/$f" ]; then differ+=("$f"); fi
        fi
    done
    if [ ${#differ[@]} = 0 ]; then
        results+=("$name|yes|$note")
    else
        results+=("$name|NO: ${differ[*]}|$note (exit $(cat "$out/$name/git/status")/$(cat "$out/$name/gitwire/status"))")
    fi
}

# What a scenario's state is: dumps <git dir>... and trees <work tree>... (relative to $run).
# Both keep the status of the command before them.
dumps() { local status=$?; printf '%s\n' "$@" >>"$work/dumps"; return $status; }
trees() { local status=$?; printf '%s\n' "$@" >>"$work/trees"; return $status; }
gitfiles() { local status=$?; printf '%s\n' "$@" >>"$work/gitfiles"; return $status; }

# git's clone with a work tree checks files out; gitwire's never does.
clone_cmd() { if [ "$SIDE" = git ]; then git clone --no-checkout "$@"; else "$G" clone "$@"; fi; }

# ls-remote ------------------------------------------------------------------------------------
s_ls_subdir() { cd sub/dir && $G ls-remote; }
s_ls_insteadof() { $G ls-remote up:up.git 'refs/heads/*'; }
s_ls_named() { $G ls-remote --symref second HEAD; }
s_ls_C() { cd / && $G -C "$run/repo/sub" ls-remote origin v1.0; }
s_ls_gitdir_env() { cd / && GIT_DIR=$run/repo/.git $G ls-remote --heads; }
s_ls_gitdir_opt() { cd / && $G --git-dir="$run/repo/.git" ls-remote --heads; }
s_ls_ssh() { $G ls-remote "fieldhost:$run/up.git" HEAD; }
s_ls_getur() { $G ls-remote --get-url; $G ls-remote --get-url up:x.git; }
s_ls_exitcode() { $G ls-remote --exit-code origin no-such-ref; }
s_ls_missing() { $G ls-remote nosuchremote; }

# clone ----------------------------------------------------------------------------------------
s_clone_nonempty() { mkdir -p ../dest && echo x >../dest/f && clone_cmd up:up.git ../dest; dumps dest; }
s_clone_emptydir() { mkdir -p ../dest && clone_cmd -q up:up.git ../dest; dumps dest/.git; }
s_clone_origin_branch() { cd .. && clone_cmd -o upstream -b feature up:up.git c1; dumps c1/.git; }
s_clone_depth() { cd .. && clone_cmd --depth 1 "file://$run/up.git" c2; dumps c2/.git; }
s_clone_single_notags() { cd .. && clone_cmd --single-branch --no-tags -b wip/x up:up.git c3; dumps c3/.git; }
s_clone_mirror() { cd .. && $G clone --mirror up:up.git m.git; dumps m.git; }
s_clone_bare_default_name() { cd .. && $G clone --bare up:up.git; dumps up.git; }
s_clone_badbranch() { cd .. && clone_cmd -b nope up:up.git c4; dumps c4; }
s_clone_ssh() { cd .. && clone_cmd -q "fieldhost:$run/up.git" c5; dumps c5/.git; }

# fetch ----------------------------------------------------------------------------------------
s_fetch_default() { $G fetch; dumps repo/.git; trees repo wt-feature; }
s_fetch_subdir() { cd sub/dir && $G fetch origin; dumps repo/.git; }
s_fetch_from_worktree() { cd ../wt-detached && $G fetch; dumps repo/.git; trees wt-detached; }
s_fetch_prune() { $G fetch --prune origin; dumps repo/.git; }
s_fetch_prune_config() { git config fetch.prune true && $G fetch; dumps repo/.git; }
s_fetch_tags() { $G fetch --tags origin; dumps repo/.git; }
s_fetch_notags_opt() { git config remote.origin.tagOpt --no-tags && $G fetch origin; dumps repo/.git; }
s_fetch_force_refspec() { $G fetch --force origin 'refs/heads/feature:refs/heads/feature-copy'; dumps repo/.git; }
s_fetch_into_head() { $G fetch origin main:main; dumps repo/.git; trees repo; }
s_fetch_into_wt_branch() { $G fetch origin +feature:feature; dumps repo/.git; trees wt-feature; }
s_fetch_into_wt_update_head_ok() { $G fetch --update-head-ok origin +main:main +feature:feature; dumps repo/.git; trees repo wt-feature; }
s_fetch_into_wt_configured() { git config --add remote.origin.fetch '+refs/heads/feature:refs/heads/feature' && $G fetch origin; dumps repo/.git; }
s_fetch_into_wt_from_wt() { cd ../wt-feature && $G fetch origin +main:main; dumps repo/.git; trees repo; }
s_fetch_into_wt_detached() { $G fetch origin +main:refs/heads/other; cd ../wt-detached && $G fetch origin +feature:feature; dumps repo/.git; }
bare_worktrees() { # a bare repository (HEAD: main) with linked work trees on feature and on main
    cd .. && git clone -q --bare up.git bw.git && git -C bw.git config remote.origin.fetch '+refs/heads/*:refs/heads/*'
    git -C bw.git worktree add -q "$run/bw-feature" feature && git -C bw.git worktree add -q -f "$run/bw-main" main
    git -C bw.git worktree add -q "$run/bw-wip" wip/x
}
s_fetch_bare_worktrees() { bare_worktrees && cd bw.git && $G fetch origin; dumps bw.git; trees bw-feature; }
s_fetch_bare_worktrees_head() { bare_worktrees && cd bw.git && $G fetch origin +main:main; dumps bw.git; }
s_fetch_bare_worktrees_head_only() {
    bare_worktrees && git -C bw.git worktree remove --force "$run/bw-main" && cd bw.git && $G fetch origin +main:main
    dumps bw.git
}
s_fetch_bare_worktrees_from_wt() { bare_worktrees && cd bw-wip && $G fetch origin +newbranch:wip/x; dumps bw.git; }
s_fetch_bare_worktrees_update_head_ok() { bare_worktrees && cd bw.git && $G fetch -u origin; dumps bw.git; trees bw-feature; }
s_fetch_update_head_ok() { $G fetch --update-head-ok origin +feature:feature; dumps repo/.git; trees wt-feature; }
s_fetch_cmdline_refspecs() { $G fetch origin newbranch 'refs/tags/v2.0:refs/tags/v2.0' wip/x:refs/remotes/w; dumps repo/.git; }
s_fetch_url() { $G fetch up:up.git; dumps repo/.git; }
s_fetch_all() { $G fetch --all; dumps repo/.git; }
s_fetch_dry_run() { $G fetch --dry-run; dumps repo/.git; }
s_fetch_negative() {
    git config --add remote.origin.fetch '^refs/heads/wip/*'
    git config --add remote.origin.fetch '+refs/tags/*:refs/remotes/origin-tags/*'
    $G fetch origin
    dumps repo/.git
}
s_fetch_gitdir_worktree_env() { cd / && GIT_DIR=$run/repo/.git GIT_WORK_TREE=$run/repo $G fetch second; dumps repo/.git; }
s_fetch_C() { cd / && $G -C "$run/wt-feature" fetch origin; dumps repo/.git; }
s_fetch_gitdir_opt() { cd / && $G --git-dir="$run/repo/.git" fetch origin; dumps repo/.git; }
s_fetch_ssh() { git remote set-url origin "fieldhost:$run/up.git" && $G fetch; dumps repo/.git; }
s_fetch_depth() { cd .. && git clone -q --depth 1 "file://$run/up.git" sh && cd sh && $G fetch --depth 2; dumps sh/.git; }
s_fetch_not_repo() { cd / && $G fetch origin; }
s_fetch_badremote() { $G fetch nosuch; }
s_fetch_bare_mirror() { cd .. && git clone -q --mirror up:up.git mm.git && cd mm.git && $G fetch --prune; dumps mm.git; }

s_fetch_prune_tags() { git tag -f stale HEAD && $G fetch --prune --prune-tags origin; dumps repo/.git; }
s_fetch_refmap() { $G fetch --refmap='+refs/heads/*:refs/remotes/elsewhere/*' origin main; dumps repo/.git; }
s_fetch_append() { $G fetch second && $G fetch --append origin; dumps repo/.git; }
s_fetch_verbose() { $G fetch -v origin; dumps repo/.git; }
s_fetch_mirror_config() { git config remote.origin.mirror true && $G fetch origin; dumps repo/.git; }
s_fetch_multiple() { $G fetch --multiple origin second; dumps repo/.git; }
s_fetch_group() { git config remotes.both "origin second" && $G fetch both; dumps repo/.git; }
s_fetch_compact() { $G -c fetch.output=compact fetch; dumps repo/.git; }
s_fetch_branch_remote() {
    git config branch.main.remote second && git config branch.main.merge refs/heads/wip/x
    $G fetch
    dumps repo/.git
}
s_ls_includeif() { $G ls-remote inc:up.git HEAD; cd / && $G ls-remote inc:up.git HEAD; }
s_clone_default_remote_name() { cd .. && clone_cmd -q -c clone.defaultRemoteName=upstream up:up.git c6 && $G -C c6 fetch; dumps c6/.git; }
s_clone_config_default_remote_name() { cd .. && git config --global clone.defaultRemoteName up && clone_cmd -q up:up.git c7; dumps c7/.git; }

# push -----------------------------------------------------------------------------------------
s_push_nonbare_current() { $G push nb: main; dumps nonbare/.git; trees nonbare; }
s_push_nonbare_other() { $G push "file://$run/nonbare" local-only; dumps nonbare/.git; }
s_push_default_simple() { git checkout -q local-only && $G push origin; dumps up.git repo/.git; }
s_push_default_current() { git checkout -q local-only && $G -c push.default=current push; dumps up.git repo/.git; }
s_push_default_upstream() {
    git checkout -q -b topic && git branch -q --set-upstream-to=origin/wip/x
    $G -c push.default=upstream push --force
    dumps up.git repo/.git
}
s_push_default_matching() { git branch -f feature origin/main && $G -c push.default=matching push; dumps up.git repo/.git; }
s_push_default_nothing() { $G -c push.default=nothing push; }
s_push_pushurl() { git config remote.origin.pushurl "file://$run/nonbare" && $G push origin local-only; dumps up.git nonbare/.git; }
s_push_rejected() { $G push origin main; dumps up.git repo/.git; }
s_push_pushinsteadof() { git remote add nb nb: && $G push nb local-only:refs/heads/via; dumps nonbare/.git; }
# push configuration: push.default with and without an upstream, and with one of another name;
# where a push goes (remote.pushDefault, branch.<name>.pushRemote, pushurl, (push)insteadOf);
# what it adds (followTags, -u, autoSetupRemote); from a linked work tree and a detached HEAD.
pushed() { dumps up.git second.git repo/.git; }
same_dates() { export GIT_COMMITTER_DATE='1700000000 +0000' GIT_AUTHOR_DATE='1700000000 +0000'; } # commits and tags made alike
s_push_simple_no_upstream() { git checkout -q local-only && $G push; pushed; }
s_push_simple_no_upstream_named() { git checkout -q local-only && $G push origin; pushed; }
s_push_simple_other_name() { git checkout -q -b topic && git branch -q --set-upstream-to=origin/wip/x && $G push; pushed; }
s_push_simple_other_name_named() { git checkout -q -b topic && git branch -q --set-upstream-to=origin/wip/x && $G push origin; pushed; }
s_push_simple_other_remote() { git checkout -q -b topic origin/main && git branch -q --set-upstream-to=second/main && $G push origin; pushed; }
s_push_simple_upstream() { same_dates; git checkout -q -b topic origin/main && git branch -q --set-upstream-to=origin/main && commit . t.txt t && $G push; pushed; }
s_push_current_no_upstream() { git checkout -q local-only && $G -c push.default=current push; pushed; }
s_push_current_other_name() { git checkout -q -b topic && git branch -q --set-upstream-to=origin/wip/x && $G -c push.default=current push; pushed; }
s_push_upstream_none() { git checkout -q local-only && $G -c push.default=upstream push; pushed; }
s_push_upstream_other_remote() {
    git checkout -q -b topic origin/main && git branch -q --set-upstream-to=second/main && $G -c push.default=upstream push origin; pushed
}
s_push_matching_explicit() { git branch -f feature origin/main && $G -c push.default=simple push origin :; pushed; }
s_push_nothing_named() { $G -c push.default=nothing push origin; pushed; }
s_push_default_bad() { $G -c push.default=bogus push; pushed; }
s_push_default_bad_file() { git config push.default bogus && $G push; cd sub && $G push origin main; pushed; }
s_push_default_bad_bare() { cd ../up.git && git config push.default bogus && $G push ../second.git main; cd refs && $G push ../../second.git main; pushed; }
s_push_remote_pushdefault() { git checkout -q local-only && git config remote.pushDefault second && $G -c push.default=current push; pushed; }
s_push_branch_pushremote() {
    git checkout -q local-only && git config remote.pushDefault origin && git config branch.local-only.pushRemote second
    $G -c push.default=current push; pushed
}
s_push_pushremote_simple() { git config branch.main.pushRemote second && $G push; pushed; }
s_push_pushurl_several() {
    git config --add remote.origin.pushurl "file://$run/second.git" && git config --add remote.origin.pushurl "file://$run/nonbare"
    $G push origin local-only; dumps up.git second.git nonbare/.git repo/.git
}
s_push_insteadof() { git remote add io up:second.git && $G push io local-only; pushed; }
s_push_url_pushinsteadof() { $G push nb: local-only:refs/heads/via; dumps nonbare/.git; }
s_push_follow_tags() { same_dates;
    git checkout -q local-only && git tag -a -m t1 t-annotated && git tag t-light && git tag -a -m old t-old origin/main
    $G -c push.followTags=true push origin local-only; pushed
}
s_push_follow_tags_opt() { same_dates; git checkout -q local-only && git tag -a -m t1 t-annotated && $G push --follow-tags origin local-only; pushed; }
s_push_u() { git checkout -q local-only && $G push -u origin local-only; pushed; }
s_push_u_head() { git checkout -q local-only && $G push -u second HEAD; pushed; }
s_push_u_other_name() { git checkout -q local-only && $G push --set-upstream origin local-only:elsewhere; pushed; }
s_push_autosetupremote() { git checkout -q local-only && $G -c push.autoSetupRemote=true push; pushed; }
s_push_autosetupremote_upstream() { git checkout -q local-only && $G -c push.autoSetupRemote=true -c push.default=upstream push; pushed; }
s_push_worktree() { same_dates; cd ../wt-feature && commit . wt.txt wt && $G -c push.default=current push; pushed; }
s_push_worktree_simple() { same_dates; cd ../wt-feature && commit . wt.txt wt && $G push; pushed; }
s_push_detached() { git checkout -q --detach && $G push; pushed; }
s_push_detached_worktree() { cd ../wt-detached && $G -c push.default=current push origin; pushed; }
s_push_detached_head() { git checkout -q --detach && $G push origin HEAD:refs/heads/from-detached; pushed; }

# smart HTTP: the scripted credential helper, credential.helper=store, http.<url>.extraHeader --
s_http_ls_auth() { $G ls-remote "$HTTP/auth/up.git" HEAD; }
s_http_clone_auth() { cd .. && clone_cmd -q "$HTTP/auth/up.git" hc; dumps hc/.git; }
s_http_fetch() { git remote set-url origin "$HTTP/auth/up.git" && $G fetch; dumps repo/.git; }
# The requests name the same agent (GIT_USER_AGENT), so that their sizes can be the same.
s_http_fetch_verbose() { git remote set-url origin "$HTTP/git/up.git" && GIT_USER_AGENT=field $G fetch -v; dumps repo/.git; }
s_http_fetch_verbose_gzip() { # 40 commits of its own: haves enough for a request over 1024 bytes
    git checkout -q -b many && for i in $(seq 40); do
        GIT_COMMITTER_DATE="$((1700000000 + i)) +0000" GIT_AUTHOR_DATE="$((1700000000 + i)) +0000" git commit -q --allow-empty -m "many $i"
    done
    git remote set-url origin "$HTTP/git/up.git" && GIT_USER_AGENT=field $G fetch -v origin; dumps repo/.git
}
s_http_fetch_verbose_v0() {
    git remote set-url origin "$HTTP/git/up.git" && GIT_USER_AGENT=field $G -c protocol.version=0 fetch -v
    dumps repo/.git
}
s_http_store() {
    printf '%s\n' "${HTTP/http:\/\//http://gitwire:secret@}" >"$HOME/.git-credentials"
    $G -c credential.helper= -c credential.helper=store ls-remote "$HTTP/auth/up.git" HEAD
    cat "$HOME/.git-credentials"
}
s_http_bad_password() {
    printf '#!/bin/sh\necho "$1" >>"$HOME/cred.log"\n[ "$1" = get ] && printf "username=gitwire\\npassword=wrong\\n"\nexit 0\n' >"$run/bin/bad-helper"
    chmod +x "$run/bin/bad-helper"
    $G -c credential.helper= -c credential.helper="$run/bin/bad-helper" ls-remote "$HTTP/auth/up.git"
}
s_http_push() { $G push "$HTTP/auth/up.git" local-only; dumps up.git; }

# index-pack, usage ----------------------------------------------------------------------------
s_index_pack() {
    git rev-list --objects --all | git pack-objects -q ../made >/dev/null
    mv ../made-*.pack ../x.pack
    $G index-pack -o ../x.idx ../x.pack && git verify-pack ../x.idx | tail -2
}
s_index_pack_missing() { $G index-pack ../nothing.pack; }
# The usage that follows a mistake lists each program's own options: the message (first line)
# and the exit status are compared.
first_line() {
    local text status
    text=$("$@" 2>&1)
    status=$?
    printf '%s\n' "${text%%$'\n'*}"
    return $status
}
s_usage_fetch() { first_line $G fetch --no-such-option; }
s_usage_clone() { first_line $G clone; }
s_usage_lsremote() { first_line $G ls-remote --bogus; }
s_usage_global() { first_line $G --bogus-global ls-remote; }
s_help_gitdir_missing() { first_line $G --git-dir; }
s_usage_push() { first_line $G push --no-such-option; }
s_usage_fetch_all_repo() { $G fetch --all origin; }

# configuration sources ------------------------------------------------------------------------
alt_config() { printf '[url "file://%s/"]\n\tinsteadOf = %s\n' "$run" "$2" >"$1"; }
s_cfg_global_env() { alt_config "$run/alt.cfg" alt: && GIT_CONFIG_GLOBAL=$run/alt.cfg $G ls-remote alt:up.git HEAD; $G ls-remote alt:up.git HEAD; }
s_cfg_global_devnull() { GIT_CONFIG_GLOBAL=/dev/null $G ls-remote up:up.git HEAD; }
s_cfg_system_env() { alt_config "$run/sys.cfg" sys: && GIT_CONFIG_NOSYSTEM= GIT_CONFIG_SYSTEM=$run/sys.cfg $G ls-remote sys:up.git HEAD; }
s_cfg_nosystem() { alt_config "$run/sys.cfg" sys: && GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_SYSTEM=$run/sys.cfg $G ls-remote sys:up.git HEAD; }
s_cfg_nosystem_bad() { GIT_CONFIG_NOSYSTEM=maybe $G ls-remote origin HEAD; }
s_cfg_count() { GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0="url.file://$run/.insteadOf" GIT_CONFIG_VALUE_0=env: $G ls-remote env:up.git HEAD; }
s_cfg_count_missing() { GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=a.b GIT_CONFIG_VALUE_0=c $G ls-remote origin HEAD; }
s_cfg_count_bad() { GIT_CONFIG_COUNT=x $G ls-remote origin HEAD; }
s_cfg_c_bool() { $G -c fetch.prune fetch; dumps repo/.git; }
s_cfg_c_bad() { $G -c =x ls-remote origin HEAD; $G -c nodot ls-remote origin HEAD; }
s_cfg_xdg() { mkdir -p "$XDG_CONFIG_HOME/git" && alt_config "$XDG_CONFIG_HOME/git/config" xdg: && $G ls-remote xdg:up.git HEAD; }
s_cfg_syntax_error() { printf '[broken\n' >>"$HOME/.gitconfig" && $G fetch; }
s_cfg_gitdir_i() {
    printf '[includeIf "gitdir/i:%s/REPO/"]\n\tpath = %s/ci.inc\n' "$run" "$run" >>"$HOME/.gitconfig"
    alt_config "$run/ci.inc" ci: && $G ls-remote ci:up.git HEAD
}
s_cfg_gitdir_case() {
    printf '[includeIf "gitdir:%s/REPO/"]\n\tpath = %s/ci.inc\n' "$run" "$run" >>"$HOME/.gitconfig"
    alt_config "$run/ci.inc" ci: && $G ls-remote ci:up.git HEAD
}
s_cfg_onbranch() {
    printf '[includeIf "onbranch:local-*"]\n\tpath = %s/ob.inc\n' "$run" >>"$HOME/.gitconfig"
    printf '[fetch]\n\tprune = true\n' >"$run/ob.inc"
    $G fetch && git checkout -q local-only && $G fetch second; dumps repo/.git
}
s_cfg_hasconfig() {
    printf '[includeIf "hasconfig:remote.*.url:file://%s/second.git"]\n\tpath = %s/hc.inc\n' "$run" "$run" >>"$HOME/.gitconfig"
    printf '[remote "origin"]\n\ttagOpt = --no-tags\n' >"$run/hc.inc"
    git remote set-url second "file://$run/second.git" && $G fetch; dumps repo/.git
}
s_cfg_worktree_config() {
    git config extensions.worktreeConfig true
    git -C ../wt-feature config --worktree remote.origin.tagOpt --no-tags
    git -C ../wt-feature config --worktree fetch.prune true
    cd ../wt-feature && $G fetch; dumps repo/.git
}
s_cfg_remote_case() {
    printf '[remote "Origin"]\n\turl = file://%s/second.git\n\tfetch = +refs/heads/*:refs/remotes/Origin/*\n' "$run" >>.git/config
    $G fetch Origin; $G ls-remote Origin HEAD; $G ls-remote ORIGIN HEAD; dumps repo/.git
}
s_cfg_insteadof_longest() {
    printf '[url "file://%s/nothing/"]\n\tinsteadOf = lo:\n[url "file://%s/"]\n\tinsteadOf = lo:u\n' "$run" "$run" >>"$HOME/.gitconfig"
    $G ls-remote lo:up.git HEAD
}
s_cfg_pushinsteadof_fetch() { git remote add nb nb: && $G fetch nb; dumps repo/.git; }

# fetch settings -------------------------------------------------------------------------------
s_fetch_remote_prune() { git config remote.origin.prune true && $G fetch; dumps repo/.git; }
s_fetch_remote_prune_overrides() { git config fetch.prune true && git config remote.origin.prune false && $G fetch; dumps repo/.git; }
s_fetch_prunetags_config() { git tag -f stale HEAD && git config fetch.prune true && git config fetch.pruneTags true && $G fetch; dumps repo/.git; }
s_fetch_tagopt_tags() { git config remote.origin.tagOpt --tags && $G fetch; dumps repo/.git; }
s_fetch_mid_wildcard() {
    git config --unset-all remote.origin.fetch
    git config --add remote.origin.fetch '+refs/heads/wip/*:refs/remotes/o/*/wip'
    git config --add remote.origin.fetch '+refs/heads/m*n:refs/remotes/o/m*n'
    $G fetch origin; dumps repo/.git
}
s_fetch_several_lines() {
    git config --add remote.origin.fetch '+refs/heads/main:refs/remotes/mirror/main'
    git config --add remote.origin.fetch 'refs/tags/v2.0:refs/tags/copied'
    $G fetch origin; dumps repo/.git
}
s_fetch_set_upstream() { git checkout -q local-only && $G fetch --set-upstream origin newbranch; dumps repo/.git; }
s_fetch_skip_all() { git config remote.second.skipFetchAll true && $G fetch --all; dumps repo/.git; }
s_fetch_atomic() { $G fetch --atomic origin; dumps repo/.git; }
s_fetch_atomic_reject() { git branch -f feature-copy local-only && $G fetch --atomic origin feature:feature-copy main:refs/remotes/x; dumps repo/.git; }
s_fetch_porcelain() { first_line $G fetch --porcelain origin; dumps repo/.git; }
s_fetch_keep() { $G fetch -k origin; dumps repo/.git; }
s_fetch_dry_run_prune() { $G fetch --dry-run --prune origin; dumps repo/.git; }
graph_files() { # the layers (mode, size, name: their checksum), the chain; git's verdict
    (cd .git/objects/info/commit-graphs && stat -c '%A %s %n' * && cat commit-graph-chain) && git commit-graph verify
}
s_fetch_commit_graph() { $G -c fetch.writeCommitGraph=true fetch; dumps repo/.git; ls .git/objects/info; graph_files; }
s_fetch_commit_graph_one_file() { # a graph of one file: the base of the new chain, or merged into it
    git commit-graph write --reachable && $G -c fetch.writeCommitGraph=true fetch; dumps repo/.git; ls .git/objects/info; graph_files
}
s_fetch_commit_graph_all() { # the children write none, the fetch one layer at the end
    $G -c fetch.writeCommitGraph=true fetch --all && GIT_COMMITTER_DATE="1700000000 +0000" GIT_AUTHOR_DATE="1700000000 +0000" \
        git commit -q --allow-empty -m more && $G fetch --write-commit-graph
    dumps repo/.git; graph_files
}
s_fetch_submodule() {
    # The same commits on both sides.
    export GIT_COMMITTER_DATE='1700000000 +0000' GIT_AUTHOR_DATE='1700000000 +0000'
    git -c protocol.file.allow=always submodule -q add "file://$run/second.git" mod
    git commit -q -m mod
    git push -q origin HEAD:refs/heads/with-mod
    git -C mod fetch -q "file://$run/up.git" main && git -C mod checkout -q FETCH_HEAD
    cd .. && git clone -q up.git tmpw && cd tmpw && git checkout -q with-mod && git -c protocol.file.allow=always submodule -q update --init
    git -C mod fetch -q "file://$run/up.git" main && git -C mod checkout -q FETCH_HEAD && git commit -qam bump && git -C mod push -q origin HEAD:refs/heads/for-mod && git push -q origin with-mod
    cd ../repo && $G fetch; dumps repo/.git repo/.git/modules/mod
}
s_fetch_non_ascii() {
    git --git-dir=../up.git branch 'brañch/ü' main && $G fetch && $G ls-remote origin 'refs/heads/bra*'; dumps repo/.git
}
s_fetch_bad_push_default() { git config push.default bogus && $G fetch; cd sub && $G -c push.default=simple fetch origin; dumps repo/.git; }
s_fetch_bad_push_default_c() { $G -c push.default=bogus fetch origin; dumps repo/.git; }
s_fetch_logall_false() { git config core.logAllRefUpdates false && rm -rf .git/logs/refs/remotes && $G fetch; dumps repo/.git; }
s_fetch_logall_always() { git config core.logAllRefUpdates always && $G fetch origin +refs/heads/*:refs/foo/*; dumps repo/.git; }
stamp() { touch "$run/stamp" && (cd "$run/$1" && find . -type d | sort >"$run/dirs-before"); }
modes() { # the modes of the files changed and directories made in <git dir> since `stamp <git dir>`
    (cd "$run/$1" && find . -type f -newer "$run/stamp" -printf '%M %p\n' &&
        find . -type d | sort | comm -13 "$run/dirs-before" - | xargs -r stat -c '%A %n') |
        sed -E 's/[0-9a-f]{38,64}/X/g' | sort -u
}
# gitwire keeps every pack: git is asked to keep its pack too (transfer.unpackLimit=1).
s_fetch_shared_group() { git config core.sharedRepository group && stamp repo/.git && $G -c transfer.unpackLimit=1 fetch; dumps repo/.git; modes repo/.git; }
s_fetch_umask() { stamp repo/.git && umask 077 && $G -c transfer.unpackLimit=1 fetch; dumps repo/.git; modes repo/.git; }
s_fetch_alternates() {
    cd .. && git clone -q --shared up.git alt && cd alt && git --git-dir=../up.git branch extra newbranch
    $G fetch; dumps alt/.git; cat .git/objects/info/alternates
}
# The upstream moves on; the repository the clone borrows from fetches part of it first: only
# the rest is fetched (the packs' object counts compared).
s_fetch_alternates_moved() {
    # The same new commits on both sides, newer than the fixture's.
    export GIT_COMMITTER_DATE='2000000000 +0000' GIT_AUTHOR_DATE='2000000000 +0000'
    cd .. && git clone -q --bare up.git ref.git && git clone -q --bare --reference ref.git up.git alt2.git
    git clone -q up.git mover && cd mover && commit . m1.txt m1 && commit . m2.txt m2 && git push -q origin main
    git -C ../ref.git fetch -q origin main:main && commit . m3.txt m3 && git push -q origin main && cd ../alt2.git
    $G -c transfer.unpackLimit=1 fetch -q origin main:main; dumps alt2.git
    for p in objects/pack/*.idx; do git show-index <"$p" | wc -l; done
}
s_fetch_ceiling() { cd sub/dir && GIT_CEILING_DIRECTORIES=$run/repo/sub $G fetch; GIT_CEILING_DIRECTORIES=$run/repo $G fetch; }
s_fetch_bare_with_tree() { git config core.bare true && $G fetch; dumps repo/.git; }
s_fetch_gitfile() { cd .. && git clone -q --separate-git-dir "$run/sep.git" up.git sep && cd sep && $G fetch second 2>&1; $G fetch; dumps sep.git; }
s_fetch_dubious() { chown -R nobody "$run/repo" && $G fetch; $G ls-remote origin HEAD; $G -c safe.directory="$run/repo" fetch; dumps repo/.git; }
s_fetch_dubious_global() { chown -R nobody "$run/repo" && git config --global safe.directory '*' && $G fetch; dumps repo/.git; }

# clone options --------------------------------------------------------------------------------
s_clone_template() {
    mkdir -p ../tpl/hooks ../tpl/info && printf 'tplx\n' >../tpl/info/exclude && printf '[core]\n\tfromtemplate = yes\n' >../tpl/config
    cd .. && clone_cmd -q --template=tpl up:up.git ct; dumps ct/.git; cat ct/.git/info/exclude
}
make_template() { # a template with hooks, a link, a hidden file, and a config git's clone edits
    mkdir -p "$1/hooks" "$1/info" "$1/empty" "$1/.hidden"
    printf '#!/bin/sh\nexit 0\n' >"$1/hooks/pre-commit" && chmod 755 "$1/hooks/pre-commit"
    printf 'x\n' >"$1/hooks/notes" && chmod 600 "$1/hooks/notes"
    printf '*.o\n' >"$1/info/exclude" && printf 'mine\n' >"$1/description" && printf 'h\n' >"$1/.hidden/f"
    ln -s description "$1/described"
    printf '# from the template\n[core]\n\thooksPath = hooks\n\tlogAllRefUpdates = true\n[user]\n\tname = T ; t\n' >"$1/config"
}
s_clone_template_full() { make_template ../tpl2 && cd .. && clone_cmd --template=tpl2 -c a.b=c up:up.git ct2; dumps ct2/.git; gitfiles ct2/.git; }
s_clone_template_bare() { # the template's core.logAllRefUpdates=true: git's bare clone logs HEAD
    make_template ../tpl3 && cd .. && $G clone -q --bare --template="$run/tpl3" up:up.git ct3.git; dumps ct3.git; gitfiles ct3.git; }
s_clone_bare_logall() { cd .. && $G clone -q --bare -c core.logAllRefUpdates=true up:up.git cb.git; dumps cb.git; }
s_clone_bare_logall_tag() { cd .. && $G clone -q --bare -b v1.0 -c core.logAllRefUpdates=always up:up.git cb2.git; dumps cb2.git; }
s_clone_mirror_logall_global() { cd .. && git config --global core.logAllRefUpdates true && $G clone -q --mirror up:up.git cb3.git; dumps cb3.git; }
s_clone_template_format() {
    make_template ../tpl9 && printf '[core]\n\trepositoryformatversion = 1\n[extensions]\n\tfoo = x\n' >../tpl9/config
    make_template ../tpl10 && printf '[core]\n\trepositoryformatversion = 99\n' >../tpl10/config
    cd .. && clone_cmd --template=tpl9 up:up.git ct9; gitfiles ct9/.git; clone_cmd --bare --template="$run/tpl10" up:up.git ct10.git; gitfiles ct10.git
}
s_clone_template_config() { make_template ../tpl4 && git config --global init.templateDir "$run/tpl4" && cd .. && clone_cmd -q up:up.git ct4; gitfiles ct4/.git; }
s_clone_template_env() { make_template ../tpl5 && cd .. && GIT_TEMPLATE_DIR=$run/tpl5 clone_cmd -q up:up.git ct5; gitfiles ct5/.git; }
s_clone_template_missing() { cd .. && clone_cmd --template=nowhere up:up.git ct6; gitfiles ct6/.git; }
s_clone_template_empty() { cd .. && clone_cmd --template= up:up.git ct7; dumps ct7/.git; gitfiles ct7/.git; }
s_clone_default_template() { cd .. && clone_cmd -q up:up.git ct8; gitfiles ct8/.git; }
s_clone_separate() { cd .. && clone_cmd -q --separate-git-dir="$run/cs.git" up:up.git cs; dumps cs.git; cat cs/.git; }
s_clone_separate_relative() {
    cd .. && clone_cmd --separate-git-dir=cs2.git up:up.git cs2; dumps cs2.git; gitfiles cs2.git; cat cs2/.git; ls -A cs2
}
s_clone_separate_bare() { cd .. && $G clone --bare --separate-git-dir=cs3.git up:up.git cs3; ls -d cs3 cs3.git; }
s_clone_separate_nonempty() { mkdir -p ../cs4.git && touch ../cs4.git/f && cd .. && clone_cmd --separate-git-dir=cs4.git up:up.git cs4; ls -A cs4 cs4.git; }
s_clone_separate_empty() { mkdir -p ../cs5.git && cd .. && clone_cmd --separate-git-dir=cs5.git up:up.git cs5; ls -A cs5 cs5.git; }
s_clone_no_checkout() { cd .. && $G clone -q --no-checkout up:up.git cn; dumps cn/.git; trees cn; }
s_clone_reference() { cd .. && clone_cmd -q --reference up.git up:second.git cr; dumps cr/.git; cat cr/.git/objects/info/alternates; }
s_clone_reference_if_able() {
    cd .. && clone_cmd --reference-if-able nowhere --reference-if-able up.git up:second.git cr2; dumps cr2/.git
    cat cr2/.git/objects/info/alternates; ls cr2/.git/objects/pack
}
s_clone_reference_bad() { cd .. && clone_cmd --reference repo/sub up:second.git cr3; ls -d cr3; }
s_clone_shared() { cd .. && clone_cmd -q --shared up.git cs2; dumps cs2/.git; cat cs2/.git/objects/info/alternates; }
s_clone_dissociate() { cd .. && clone_cmd -q --reference up.git --dissociate up:second.git cd; dumps cd/.git; ls cd/.git/objects/info/alternates; }
s_clone_dot() { mkdir ../dot && cd ../dot && clone_cmd -q up:up.git .; dumps dot/.git; }
s_clone_empty_remote() {
    git init -q --bare ../empty.git && cd .. && clone_cmd up:empty.git ce; dumps ce/.git
    git config --global init.defaultBranch trunk && clone_cmd --bare up:empty.git ce2.git; dumps ce2.git
}
s_clone_origin_config() { cd .. && clone_cmd -q --origin up2 --no-tags up:up.git co; dumps co/.git; }

make_fixture
# The smart HTTP server serves $run (made again for each side); its log is compared too
# (without the User-Agent).
start_http_server "$run" 3600 --log "$work/http.log" --log-framing --log-header X-Field
HTTP=http://127.0.0.1:$http_port
printf '[http "%s/"]\n\textraHeader = X-Field: yes\n' "$HTTP" >>"$base/home/.gitconfig"

scenario ls-remote/subdir s_ls_subdir "no remote named: branch's remote from a subdirectory"
scenario ls-remote/insteadOf s_ls_insteadof "url.<base>.insteadOf"
scenario ls-remote/named-symref s_ls_named
scenario ls-remote/-C s_ls_C
scenario ls-remote/GIT_DIR s_ls_gitdir_env
scenario ls-remote/--git-dir s_ls_gitdir_opt
scenario ls-remote/core.sshCommand s_ls_ssh "scp-like URL through the fake ssh"
scenario ls-remote/--get-url s_ls_getur
scenario ls-remote/--exit-code s_ls_exitcode
scenario ls-remote/missing-remote s_ls_missing
scenario clone/non-empty-dir s_clone_nonempty
scenario clone/empty-dir s_clone_emptydir
scenario clone/-o-b s_clone_origin_branch
scenario clone/--depth s_clone_depth
scenario clone/--single-branch--no-tags s_clone_single_notags
scenario clone/--mirror s_clone_mirror
scenario clone/--bare-default-name s_clone_bare_default_name
scenario clone/bad-branch s_clone_badbranch
scenario clone/ssh s_clone_ssh
scenario fetch/default s_fetch_default "unpushed commits, dirty tree, linked work trees"
scenario fetch/subdir s_fetch_subdir
scenario fetch/from-linked-worktree s_fetch_from_worktree
scenario fetch/--prune s_fetch_prune
scenario fetch/fetch.prune s_fetch_prune_config
scenario fetch/--tags s_fetch_tags
scenario fetch/tagOpt s_fetch_notags_opt
scenario fetch/--force-refspec s_fetch_force_refspec
scenario fetch/into-HEAD s_fetch_into_head "git refuses"
scenario fetch/into-worktree-branch s_fetch_into_wt_branch "branch checked out in a linked work tree"
scenario fetch/--update-head-ok s_fetch_update_head_ok
scenario fetch/--update-head-ok-worktrees s_fetch_into_wt_update_head_ok "HEAD's branch and a linked work tree's"
scenario fetch/into-worktree-branch-configured s_fetch_into_wt_configured "a configured refspec"
scenario fetch/into-main-branch-from-worktree s_fetch_into_wt_from_wt "the main work tree's branch, fetched from a linked one"
scenario fetch/worktree-detached s_fetch_into_wt_detached
scenario fetch/bare-worktrees s_fetch_bare_worktrees "a bare repository with work trees"
scenario fetch/bare-worktrees-HEAD s_fetch_bare_worktrees_head "the bare HEAD's branch, checked out in a work tree too"
scenario fetch/bare-HEAD-branch s_fetch_bare_worktrees_head_only "the bare HEAD's branch alone"
scenario fetch/bare-worktrees-from-worktree s_fetch_bare_worktrees_from_wt
scenario fetch/bare-worktrees-update-head-ok s_fetch_bare_worktrees_update_head_ok
scenario fetch/cmdline-refspecs s_fetch_cmdline_refspecs
scenario fetch/url s_fetch_url "FETCH_HEAD from a URL via insteadOf"
scenario fetch/--all s_fetch_all
scenario fetch/--dry-run s_fetch_dry_run
scenario fetch/negative-refspecs s_fetch_negative
scenario fetch/GIT_DIR+GIT_WORK_TREE s_fetch_gitdir_worktree_env
scenario fetch/-C-worktree s_fetch_C
scenario fetch/--git-dir s_fetch_gitdir_opt
scenario fetch/core.sshCommand s_fetch_ssh
scenario fetch/--depth s_fetch_depth
scenario fetch/not-a-repo s_fetch_not_repo
scenario fetch/bad-remote s_fetch_badremote
scenario fetch/mirror--prune s_fetch_bare_mirror
scenario fetch/--prune-tags s_fetch_prune_tags
scenario fetch/--refmap s_fetch_refmap
scenario fetch/--append s_fetch_append
scenario fetch/-v s_fetch_verbose
scenario fetch/remote.mirror s_fetch_mirror_config "a non-bare repository configured as a mirror"
scenario fetch/--multiple s_fetch_multiple
scenario fetch/remotes-group s_fetch_group "remotes.<group>"
scenario fetch/fetch.output=compact s_fetch_compact
scenario fetch/branch.remote+merge s_fetch_branch_remote "FETCH_HEAD marks branch.main.merge"
scenario ls-remote/includeIf s_ls_includeif "insteadOf from an includeIf gitdir: file"
scenario clone/-c-clone.defaultRemoteName s_clone_default_remote_name "clone's own -c/--config"
scenario clone/global-clone.defaultRemoteName s_clone_config_default_remote_name
scenario push/default-matching s_push_default_matching
scenario push/default-nothing s_push_default_nothing
scenario push/pushurl s_push_pushurl
scenario push/non-bare-current s_push_nonbare_current "receive.denyCurrentBranch"
scenario push/non-bare-other s_push_nonbare_other
scenario push/default-simple s_push_default_simple
scenario push/default-current s_push_default_current
scenario push/default-upstream s_push_default_upstream
scenario push/rejected s_push_rejected
scenario push/pushInsteadOf s_push_pushinsteadof
scenario push/simple-no-upstream s_push_simple_no_upstream "fatal: no upstream branch, and its hint"
scenario push/simple-no-upstream-named s_push_simple_no_upstream_named
scenario push/simple-upstream-other-name s_push_simple_other_name "fatal: does not match"
scenario push/simple-upstream-other-name-named s_push_simple_other_name_named
scenario push/simple-upstream-other-remote s_push_simple_other_remote "upstream on second, pushing to origin"
scenario push/simple-upstream s_push_simple_upstream
scenario push/current-no-upstream s_push_current_no_upstream
scenario push/current-upstream-other-name s_push_current_other_name
scenario push/upstream-none s_push_upstream_none
scenario push/upstream-other-remote s_push_upstream_other_remote
scenario push/colon-matching s_push_matching_explicit "push origin :"
scenario push/nothing-named s_push_nothing_named
scenario push/default-bad s_push_default_bad "from -c"
scenario push/default-bad-file s_push_default_bad_file "from .git/config: its path and line"
scenario push/default-bad-bare s_push_default_bad_bare "from a bare repository's config"
scenario push/remote.pushDefault s_push_remote_pushdefault
scenario push/branch.pushRemote s_push_branch_pushremote "over remote.pushDefault"
scenario push/pushRemote-simple s_push_pushremote_simple "simple to another remote: the current branch"
scenario push/pushurl-several s_push_pushurl_several
scenario push/insteadOf s_push_insteadof
scenario push/pushInsteadOf-url s_push_url_pushinsteadof
scenario push/push.followTags s_push_follow_tags
scenario push/--follow-tags s_push_follow_tags_opt
scenario push/-u s_push_u
scenario push/-u-HEAD s_push_u_head
scenario push/-u-other-name s_push_u_other_name
scenario push/autoSetupRemote s_push_autosetupremote
scenario push/autoSetupRemote-upstream s_push_autosetupremote_upstream
scenario push/linked-worktree s_push_worktree "its own HEAD"
scenario push/linked-worktree-simple s_push_worktree_simple
scenario push/detached s_push_detached "fatal: You are not currently on a branch."
scenario push/detached-worktree s_push_detached_worktree
scenario push/detached-HEAD-refspec s_push_detached_head
scenario http/ls-remote-auth s_http_ls_auth "401, the scripted credential helper, extraHeader"
scenario http/clone-auth s_http_clone_auth
scenario http/fetch-auth s_http_fetch
scenario http/fetch-v s_http_fetch_verbose "POST git-upload-pack (<n> bytes) lines"
scenario http/fetch-v-gzip s_http_fetch_verbose_gzip "POST git-upload-pack (gzip <n> to <m> bytes)"
scenario http/fetch-v-v0 s_http_fetch_verbose_v0
scenario http/credential-store s_http_store
scenario http/bad-password s_http_bad_password
scenario http/push-auth s_http_push
scenario index-pack s_index_pack
scenario index-pack/missing s_index_pack_missing
scenario usage/fetch s_usage_fetch
scenario usage/clone s_usage_clone
scenario usage/ls-remote s_usage_lsremote
scenario usage/global s_usage_global
scenario usage/--git-dir-missing s_help_gitdir_missing
scenario usage/push s_usage_push
scenario usage/fetch--all-repository s_usage_fetch_all_repo

scenario config/GIT_CONFIG_GLOBAL s_cfg_global_env
scenario config/GIT_CONFIG_GLOBAL=/dev/null s_cfg_global_devnull
scenario config/GIT_CONFIG_SYSTEM s_cfg_system_env
scenario config/GIT_CONFIG_NOSYSTEM s_cfg_nosystem
scenario config/GIT_CONFIG_NOSYSTEM-bad s_cfg_nosystem_bad
scenario config/GIT_CONFIG_COUNT s_cfg_count
scenario config/GIT_CONFIG_COUNT-missing s_cfg_count_missing
scenario config/GIT_CONFIG_COUNT-bad s_cfg_count_bad
scenario config/-c-bool s_cfg_c_bool "-c fetch.prune without ="
scenario config/-c-bad s_cfg_c_bad
scenario config/XDG_CONFIG_HOME s_cfg_xdg
scenario config/syntax-error s_cfg_syntax_error
scenario config/includeIf-gitdir/i s_cfg_gitdir_i
scenario config/includeIf-gitdir-case s_cfg_gitdir_case
scenario config/includeIf-onbranch s_cfg_onbranch
scenario config/includeIf-hasconfig s_cfg_hasconfig
scenario config/worktreeConfig s_cfg_worktree_config
scenario config/remote-case s_cfg_remote_case "[remote \"Origin\"] beside origin"
scenario config/insteadOf-longest s_cfg_insteadof_longest
scenario config/pushInsteadOf-not-fetch s_cfg_pushinsteadof_fetch
scenario fetch/remote.prune s_fetch_remote_prune
scenario fetch/remote.prune-overrides s_fetch_remote_prune_overrides
scenario fetch/fetch.pruneTags s_fetch_prunetags_config
scenario fetch/tagOpt--tags s_fetch_tagopt_tags
scenario fetch/mid-wildcard s_fetch_mid_wildcard
scenario fetch/several-fetch-lines s_fetch_several_lines
scenario fetch/--set-upstream s_fetch_set_upstream
scenario fetch/skipFetchAll s_fetch_skip_all
scenario fetch/--atomic s_fetch_atomic
scenario fetch/--atomic-rejected s_fetch_atomic_reject
scenario fetch/--porcelain s_fetch_porcelain "not in git 2.39"
scenario fetch/-k s_fetch_keep
scenario fetch/--dry-run--prune s_fetch_dry_run_prune
scenario fetch/writeCommitGraph s_fetch_commit_graph
scenario fetch/writeCommitGraph-one-file s_fetch_commit_graph_one_file "objects/info/commit-graph made a chain"
scenario fetch/writeCommitGraph--all s_fetch_commit_graph_all "then --write-commit-graph: a second layer"
scenario fetch/submodule s_fetch_submodule
scenario fetch/non-ASCII s_fetch_non_ascii
scenario fetch/bad-push.default s_fetch_bad_push_default "git's default configuration checked"
scenario fetch/bad-push.default-c s_fetch_bad_push_default_c
scenario fetch/logAllRefUpdates=false s_fetch_logall_false
scenario fetch/logAllRefUpdates=always s_fetch_logall_always
scenario fetch/sharedRepository=group s_fetch_shared_group "file modes of what fetch makes"
scenario fetch/umask-077 s_fetch_umask "packs 0444 less the umask"
scenario fetch/alternates s_fetch_alternates "the alternate's refs offered as haves"
scenario fetch/alternates-moved s_fetch_alternates_moved "only what the alternate lacks is fetched"
scenario fetch/GIT_CEILING_DIRECTORIES s_fetch_ceiling
scenario fetch/core.bare-with-tree s_fetch_bare_with_tree
scenario fetch/gitfile s_fetch_gitfile ".git file (--separate-git-dir)"
scenario fetch/dubious-ownership s_fetch_dubious
scenario fetch/safe.directory=* s_fetch_dubious_global
scenario clone/--template s_clone_template
scenario clone/--separate-git-dir s_clone_separate
scenario clone/--template-full s_clone_template_full "hooks, a link, modes; the template's config edited in place"
scenario clone/--template--bare s_clone_template_bare "the template's logAllRefUpdates: HEAD's reflog"
scenario clone/--bare-logAllRefUpdates s_clone_bare_logall "HEAD's reflog"
scenario clone/--bare-b-tag-logAllRefUpdates s_clone_bare_logall_tag "a detached HEAD's reflog"
scenario clone/--mirror-global-logAllRefUpdates s_clone_mirror_logall_global
scenario clone/--template-other-format s_clone_template_format "not copied: warning"
scenario clone/init.templateDir s_clone_template_config
scenario clone/GIT_TEMPLATE_DIR s_clone_template_env
scenario clone/--template-missing s_clone_template_missing "warning: templates not found"
scenario clone/--template-empty s_clone_template_empty "nothing copied"
scenario clone/default-template s_clone_default_template "/usr/share/git-core/templates"
scenario clone/--separate-git-dir-relative s_clone_separate_relative "the .git file names the real path"
scenario clone/--separate-git-dir--bare s_clone_separate_bare
scenario clone/--separate-git-dir-non-empty s_clone_separate_nonempty
scenario clone/--separate-git-dir-exists s_clone_separate_empty "an empty directory: refused after Cloning into"
scenario clone/--no-checkout s_clone_no_checkout
scenario clone/--reference s_clone_reference "objects/info/alternates; the reference's refs complete"
scenario clone/--reference-if-able s_clone_reference_if_able
scenario clone/--reference-bad s_clone_reference_bad "not a local repository"
scenario clone/--shared s_clone_shared "a local path: alternates, nothing fetched"
scenario clone/--dissociate s_clone_dissociate "git repacks (objects/info/packs); gitwire copies the references' packs"
scenario clone/into-dot s_clone_dot
scenario clone/empty-remote s_clone_empty_remote "init.defaultBranch"
scenario clone/--origin--no-tags s_clone_origin_config

# ---------------------------------------------------------------------------------------------
# SIGINT/SIGTERM at random points of a clone and of a fetch into the user's repository, from a
# slow server (upload-pack's output throttled to about 2 MB/s): afterwards no lock file and no
# temporary file, nothing half-made (a killed clone leaves no directory), every ref either its
# old or its new value, `git fsck` clean, the work tree (dirty files, untracked ones) untouched,
# and a second fetch that works. The same kills are sent to git, for comparison.
# ---------------------------------------------------------------------------------------------
signal_rounds=${FIELD_SIGNAL_ROUNDS:-6}
make_slow_upload_pack() {
    cat >"$1" <<'SCRIPT'
#!/bin/sh
git-upload-pack "$@" | python3 -c '
import sys, time
while True:
    data = sys.stdin.buffer.read1(8192)
    if not data:
        break
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    time.sleep(0.004)
'
SCRIPT
    chmod +x "$1"
}

worktree_state() { (cd "$1" && git status --porcelain=v1 --untracked-files=all && md5sum a.txt new.txt mine.txt); }

signals() {
    [[ signals =~ $pattern ]] || return 0
    local big=$work/big.git slow=$work/slow-upload-pack seed=$work/bigseed user=$work/sigrepo
    rm -rf "$big" "$seed" "$user"
    make_slow_upload_pack "$slow"
    git init -q -b main "$seed"
    commit "$seed" a.txt one
    git clone -q --bare "$seed" "$big"
    # The user's repository: a clone of the small history, with work in progress.
    git clone -q "$big" "$user"
    commit "$user" mine.txt unpushed
    printf 'dirty\n' >>"$user/a.txt"
    printf 'untracked\n' >"$user/new.txt"
    git -C "$user" config remote.origin.uploadpack "$slow"
    # The remote moves on by 6 MB that do not compress.
    for i in 1 2 3; do head -c 2000000 /dev/urandom >"$seed/blob$i"; done
    git -C "$seed" add . && git -C "$seed" commit -q -m big
    git -C "$seed" tag big-tag
    git -C "$seed" push -q "$big" main big-tag
    local before old new
    before=$(worktree_state "$user")
    old=$(git -C "$user" rev-parse refs/remotes/origin/main)
    new=$(git --git-dir="$big" rev-parse main)
    local program side round sig delay problems pid leftover main
    for side in git gitwire; do
        if [ $side = git ]; then program=git; else program=$gw; fi
        problems=""
        for round in $(seq 1 "$signal_rounds"); do
            if ((round % 2)); then sig=INT; else sig=TERM; fi
            delay=$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.05 + (r % 150) / 100 }')
            # A fetch into the user's repository.
            rm -rf "$work/sig" && cp -a "$user" "$work/sig"
            (cd "$work/sig" && exec "$program" fetch -q origin) >/dev/null 2>&1 &
            pid=$!
            sleep "$delay"
            kill -s "$sig" "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
            sleep 0.3 # git's children (index-pack) may end after git itself
            leftover=$(cd "$work/sig/.git" && find . \( -name '*.lock' -o -name 'tmp_*' -o -name '*.tmp' -o -name '.tmp*' \) | tr '\n' ' ')
            [ -n "$leftover" ] && problems+="fetch $sig@${delay}s left $leftover; "
            git -C "$work/sig" fsck --no-dangling >/dev/null 2>&1 || problems+="fetch $sig@${delay}s: fsck fails; "
            main=$(git -C "$work/sig" rev-parse refs/remotes/origin/main)
            [ "$main" = "$old" ] || [ "$main" = "$new" ] || problems+="fetch $sig@${delay}s: origin/main is $main; "
            [ "$(worktree_state "$work/sig")" = "$before" ] || problems+="fetch $sig@${delay}s: work tree changed; "
            (cd "$work/sig" && "$program" fetch -q origin >/dev/null 2>&1) || problems+="fetch after $sig@${delay}s fails; "
            # A clone.
            rm -rf "$work/sigclone"
            (cd "$work" && exec "$program" clone -q -u "$slow" "file://$big" sigclone) >/dev/null 2>&1 &
            pid=$!
            sleep "$delay"
            kill -s "$sig" "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
            sleep 0.3
            if [ -e "$work/sigclone" ]; then
                if [ -z "$(git -C "$work/sigclone" rev-parse -q --verify HEAD 2>/dev/null)" ] ||
                    ! git -C "$work/sigclone" fsck --no-dangling >/dev/null 2>&1; then
                    problems+="clone $sig@${delay}s left a half-made $(ls -A "$work/sigclone" | tr '\n' ' '); "
                fi
            fi
        done
        printf '%s\n' "${problems:-none}" >"$out/signals-$side"
    done
    local same=yes
    [ "$(cat "$out/signals-gitwire")" = none ] || same="NO: see notes"
    results+=("signals/fetch+clone|$same|$signal_rounds fetches and clones each killed (INT/TERM at 0.05-1.5 s); problems: gitwire: $(cat "$out/signals-gitwire"); git: $(cat "$out/signals-git")")
}
signals

# ---------------------------------------------------------------------------------------------
# Measurements, interleaved (git, gitwire, git, ...): a clone of the 6 MB repository of the
# signal scenarios over file:// (not throttled) and a fetch of it into the user's repository;
# wall time, CPU time (user+sys) and peak memory of each, medians. Load average printed with them.
# ---------------------------------------------------------------------------------------------
measure_rounds=${FIELD_MEASURE_ROUNDS:-5}
measure() {
    [[ measure =~ $pattern ]] || return 0
    [ -d "$work/big.git" ] || return 0
    local what side program round
    for what in clone fetch; do
        for side in git gitwire; do : >"$work/times-$what-$side"; done
        for round in $(seq 1 "$measure_rounds"); do
            for side in git gitwire; do
                if [ $side = git ]; then program=git; else program=$gw; fi
                rm -rf "$work/m"
                if [ $what = clone ]; then
                    (cd "$work" && /usr/bin/time -f '%e %U %S %M' -a -o "$work/times-$what-$side" \
                        "$program" clone -q "file://$work/big.git" m >/dev/null 2>&1)
                else
                    cp -a "$work/sigrepo" "$work/m"
                    git -C "$work/m" config --unset remote.origin.uploadpack
                    (cd "$work/m" && /usr/bin/time -f '%e %U %S %M' -a -o "$work/times-$what-$side" \
                        "$program" fetch -q origin >/dev/null 2>&1)
                fi
            done
        done
        for side in git gitwire; do
            local wall cpu rss
            wall=$(awk '{ print $1 }' "$work/times-$what-$side" | median)
            cpu=$(awk '{ print $2 + $3 }' "$work/times-$what-$side" | median)
            rss=$(awk '{ print $4 }' "$work/times-$what-$side" | median)
            measurements+=("$what of 6 MB, $side: wall ${wall}s, CPU ${cpu}s, peak ${rss} KiB (median of $measure_rounds)")
        done
    done
}
measurements=()
measure

printf '%-36s %-28s %s\n' scenario same-as-git notes
for r in "${results[@]}"; do
    IFS='|' read -r a b c <<<"$r"
    printf '%-36s %-28s %s\n' "$a" "$b" "$c"
done
for m in "${measurements[@]}"; do echo "$m"; done
[ ${#measurements[@]} = 0 ] || echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "outputs: $out (diff -r <scenario>/git <scenario>/gitwire)"
