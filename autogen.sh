#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Regenerate the build system.  --deps first installs the Debian packages
# the build and the tests need (run as root, or through sudo).
set -e
cd "$(dirname "$0")"

if [ "${1:-}" = "--deps" ]; then
	pkgs="build-essential autoconf automake libtool pkg-config check libdw-dev libelf-dev
		socat netcat-openbsd iperf python3 qemu-system-x86 clang libclang-rt-14-dev
		gcc-aarch64-linux-gnu qemu-system-arm
		protobuf-c-compiler libprotobuf-c-dev zlib1g-dev golang-go
		grub-pc-bin grub-efi-amd64-bin xorriso mtools ovmf xfonts-base"
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $pkgs
fi

autoreconf -fi
