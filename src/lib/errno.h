/* SPDX-License-Identifier: BSD-2-Clause */
/* Error values: negative errno-style codes, without libc. */
#ifndef KPROF_LIB_ERRNO_H
#define KPROF_LIB_ERRNO_H

#define EPERM 1
#define ENOENT 2
#define EIO 5
#define E2BIG 7
#define EAGAIN 11
#define ENOMEM 12
#define EBUSY 16
#define ENODEV 19
#define EINVAL 22
#define ENOSPC 28
#define ERANGE 34
#define ENOSYS 38
#define EMSGSIZE 90
#define ENETDOWN 100
#define ETIMEDOUT 110
#define EINPROGRESS 115
#define ESTALE 116
#define ENOKEY 126
#define EKEYREJECTED 129

#endif
