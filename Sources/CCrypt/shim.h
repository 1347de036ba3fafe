#ifndef TWEETCLI_CCRYPT_SHIM_H
#define TWEETCLI_CCRYPT_SHIM_H
#include <crypt.h>
#endif
