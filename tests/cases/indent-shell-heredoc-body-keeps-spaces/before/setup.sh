#!/bin/sh
setup() {
	echo start
}
