#!/bin/sh
set -eu
echo hi
