"""Fetches one Reddit post, its community and its author with PRAW, against the
local upstream given on the command line, and prints the wall time of each
fetch as JSON.

Usage: praw_fetch.py BASE_URL POST_ID ROUNDS

Two series: a new PRAW client per fetch (its OAuth token request included),
and one client for every fetch (the token requested once, before timing).
"""

import json
import sys
import time

import praw


def client(base):
    return praw.Reddit(
        client_id="bench",
        client_secret="bench",
        user_agent="gleaner-bench/1 (peer comparison)",
        oauth_url=base,
        reddit_url=base,
        short_url=base,
        check_for_updates=False,
        check_for_async=False,
    )


def fetch(reddit, post_id):
    post = reddit.submission(id=post_id)
    title = post.title  # GET /comments/<id>/
    subscribers = post.subreddit.subscribers  # GET /r/<name>/about/
    karma = post.author.link_karma  # GET /user/<name>/about/
    return title, subscribers, karma


def main():
    base, post_id, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    cold = []
    for _ in range(rounds):
        started = time.perf_counter()
        fetch(client(base), post_id)
        cold.append(time.perf_counter() - started)
    warm_client = client(base)
    fetch(warm_client, post_id)  # the token, once
    warm = []
    for _ in range(rounds):
        started = time.perf_counter()
        fetch(warm_client, post_id)
        warm.append(time.perf_counter() - started)
    print(
        json.dumps(
            {
                "praw": praw.__version__,
                "new_client_per_fetch_s": cold,
                "one_client_s": warm,
            }
        )
    )


if __name__ == "__main__":
    main()
