#ifndef TWEETCLI_CARCHIVE_SHIM_H
#define TWEETCLI_CARCHIVE_SHIM_H
// Declarations only: TwitterArchive loads libarchive itself with dlopen (see LibArchive.swift)
// when it reads a zipped Twitter archive, so no other command loads it.
#include <archive.h>
#include <archive_entry.h>
#endif
