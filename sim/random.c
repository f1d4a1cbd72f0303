/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/random.h for ksim: the host's getrandom(). */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/random.h>
#include <sys/types.h>

#include "hal/random.h"

bool hal_random_hw(uint64_t *v)
{
	ssize_t n;

	do
		n = getrandom(v, sizeof(*v), GRND_NONBLOCK);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*v);
}
