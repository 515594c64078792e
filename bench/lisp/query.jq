# query.jq -- the records benchmark query in jq.
#
# Usage: jq -c -f query.jq commits.json
# jq cannot time the query apart from parsing the input, so run.sh times the
# whole run and also `jq -c length commits.json` (parse only); it reports
# both the total and total minus parse as the query estimate.
#
# Query: keep files >= 3 and additions > 10; stable sort by timestamp desc;
# group by author; per author count, sum additions, sum deletions, average
# files and latest (first timestamp in the group); top 10 by additions desc,
# then author asc. jq's sort_by and group_by are stable, so each group keeps
# the timestamp-descending order.
map(select(.files >= 3 and .additions > 10))
| sort_by(-.timestamp)
| group_by(.author)
| map({
    author: .[0].author,
    commits: length,
    additions: (map(.additions) | add),
    deletions: (map(.deletions) | add),
    avg_files: ((map(.files) | add) / length),
    latest: .[0].timestamp
  })
| sort_by(-.additions, .author)
| .[:10]
