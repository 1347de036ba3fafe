#ifndef TWEETCLI_CLIBPQ_SHIM_H
#define TWEETCLI_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
