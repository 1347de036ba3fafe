#ifndef TWEETCLI_CIMAGES_SHIM_H
#define TWEETCLI_CIMAGES_SHIM_H
// Declarations only: TweetImages loads each library itself with dlopen (see ImageLibraries.swift),
// so that only a command with an image to check or show loads them.
#include <png.h>
#include <turbojpeg.h>
#include <webp/decode.h>
#include <webp/mux.h>
#include <gif_lib.h>
#include <openssl/evp.h>
#endif
