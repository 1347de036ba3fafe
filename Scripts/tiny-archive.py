#!/usr/bin/env python3
"""Writes a Twitter archive of N tiny tweets ("tweet 0", "tweet 1", ...) into DIR/data, for the
archive import's scale check with the fewest search terms a tweet can have (docs/BENCHMARK.md).

    Scripts/tiny-archive.py 1000000 /tmp/tiny && (cd /tmp/tiny && zip -q -r tiny.zip data)
    tweetcli register ... && tweetcli import --twitter-archive /tmp/tiny/tiny.zip
"""
import datetime
import os
import sys


def main() -> None:
    count, folder = int(sys.argv[1]), sys.argv[2]
    data = os.path.join(folder, "data")
    os.makedirs(data, exist_ok=True)
    newest = 1627479552160695119
    with open(os.path.join(data, "tweets.js"), "w") as out:
        out.write("window.YTD.tweets.part0 = [\n")
        for index in range(count):
            # A second apart, newest first, each ID holding its time as Twitter's do.
            twitter_id = newest - index * (1 << 22) * 1000
            milliseconds = (twitter_id >> 22) + 1288834974657
            when = datetime.datetime.fromtimestamp(milliseconds / 1000, datetime.timezone.utc)
            created = when.strftime("%a %b %d %H:%M:%S +0000 %Y")
            separator = "," if index else ""
            out.write(
                f'{separator}{{"tweet":{{"id_str":"{twitter_id}","created_at":"{created}",'
                f'"full_text":"tweet {index}"}}}}\n')
        out.write("]\n")
    with open(os.path.join(data, "account.js"), "w") as out:
        out.write('window.YTD.account.part0 = [ { "account" : { "username" : "tiny", "accountId" : "1", '
                  '"accountDisplayName" : "Tiny" } } ]')


if __name__ == "__main__":
    main()
