# Sourced by Tools/bench-batch.sh and Tools/bench-urlsession.sh (after Tools/lib.sh's
# start_work): make_batch_repos <count> makes $work/r0.git … r<count-1>.git, small bare
# repositories with refs of their own (main, topic, an annotated and a lightweight tag) that
# borrow one seed repository's objects through objects/info/alternates.

make_batch_repos() {
    local count=$1
    # One seed repository holds every object: <count>+1 commits on main and an annotated tag of each.
    git init -q --bare --initial-branch=main "$work/seed.git"
    for i in $(seq 0 "$count"); do
        printf 'blob\nmark :%d\ndata %d\ncontent %d\n\n' $((i * 3 + 1)) $((${#i} + 9)) "$i"
        printf 'commit refs/heads/main\nmark :%d\ncommitter C <c@example.com> %d +0000\ndata 2\nc\n' $((i * 3 + 2)) $((1700000000 + i))
        [ "$i" -gt 0 ] && printf 'from :%d\n' $((i * 3 - 1))
        printf 'M 100644 :%d file.txt\n\n' $((i * 3 + 1))
        printf 'tag release-%d\nfrom :%d\ntagger T <t@example.com> 1700000000 +0000\ndata 2\nt\n\n' "$i" $((i * 3 + 2))
    done | git -C "$work/seed.git" fast-import --quiet --export-marks="$work/marks"
    declare -a commit tag
    while read -r mark id; do
        mark=${mark#:}
        if [ $((mark % 3)) -eq 2 ]; then commit[$(((mark - 2) / 3))]=$id; fi
    done <"$work/marks"
    while read -r name id; do tag[${name#release-}]=$id; done < <(git -C "$work/seed.git" for-each-ref \
        --format='%(refname:strip=2) %(objectname)' refs/tags)

    # <count> repositories borrowing the seed's objects, each with its own refs (packed, sorted).
    for i in $(seq 0 $((count - 1))); do
        r="$work/r$i.git"
        mkdir -p "$r/objects/info" "$r/objects/pack" "$r/refs/heads" "$r/refs/tags"
        echo "ref: refs/heads/main" >"$r/HEAD"
        printf '[core]\n\trepositoryformatversion = 0\n\tbare = true\n' >"$r/config"
        echo "$work/seed.git/objects" >"$r/objects/info/alternates"
        {
            echo "# pack-refs with: peeled fully-peeled sorted "
            echo "${commit[$i]} refs/heads/main"
            echo "${commit[$((i + 1))]} refs/heads/topic"
            echo "${tag[$i]} refs/tags/annotated"
            echo "^${commit[$i]}"
            echo "${commit[$(((i * 7) % count))]} refs/tags/v$i"
        } >"$r/packed-refs"
    done
}
