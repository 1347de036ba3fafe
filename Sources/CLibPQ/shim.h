#ifndef TWEETCLI_CLIBPQ_SHIM_H
#define TWEETCLI_CLIBPQ_SHIM_H
// Declarations only: TweetStorePostgres loads libpq itself with dlopen (see LibPQ.swift), so
// commands on a local store never load it. The header's own includes resolve beside it.
#include <postgresql/libpq-fe.h>
#endif
