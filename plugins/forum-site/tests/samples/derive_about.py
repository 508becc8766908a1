"""Derives the about bodies the replay fixture serves for the post's own
community and author from the recorded ones, which belong to other (and, for
the community, anonymised) accounts: the names, ids and URLs are set to the
post's, and every other value is kept as recorded. Run it from this folder;
it writes the two files `index.toml` lists for r/SubTestBot1 and
u/Watchful1BotTest (and for the comment case's r/RemovedByBotter and
u/2Botter2Loop)."""

import json

def community(name, fullname, out):
    about = json.load(open("subreddit_about_2023.json"))
    data = about["data"]
    text = json.dumps(data).replace("<TEST_SUBREDDIT>", name)
    data = json.loads(text)
    data["name"] = fullname
    data["id"] = fullname.removeprefix("t5_")
    about["data"] = data
    json.dump(about, open(out, "w"), indent=1, sort_keys=True)

def author(name, fullname, out):
    about = json.load(open("user_about_2025.json"))
    data = json.loads(json.dumps(about["data"]).replace("Lil_SpazBot", name))
    data["id"] = fullname.removeprefix("t2_")
    about["data"] = data
    json.dump(about, open(out, "w"), indent=1, sort_keys=True)

community("SubTestBot1", "t5_3fib0", "subreddit_about_SubTestBot1.json")
author("Watchful1BotTest", "t2_1199gq", "user_about_Watchful1BotTest.json")
community("RemovedByBotter", "t5_xffw9", "subreddit_about_RemovedByBotter.json")
author("2Botter2Loop", "t2_3efd9zdo", "user_about_2Botter2Loop.json")
