#ifndef TWEETCLI_CZLIB_SHIM_H
#define TWEETCLI_CZLIB_SHIM_H
// Declarations only: TweetCore loads zlib with dlopen (see Zlib.swift) when it reads a zipped
// Twitter archive, so no other command loads it.
#include <zlib.h>
#endif
