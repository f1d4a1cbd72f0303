/* SPDX-License-Identifier: BSD-2-Clause */
/* hal/power.h for ksim: turning the machine off ends the simulation
 * with the status (ksim_wait() returns it); the calling thread parks. */
#include "hal/power.h"
#include "sim/sim.h"

void hal_power_off(int status)
{
	sim_machine_exit(status);
	sim_thread_park();
}
