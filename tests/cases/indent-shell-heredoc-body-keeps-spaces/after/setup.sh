#!/bin/sh
setup() {
	echo start
	cat > compose.yml <<EOF
services:
  web:
    image: nginx
EOF
}
