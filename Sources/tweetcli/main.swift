print("tweetcli")
