#!/bin/bash
# usage: make_repo.sh DIR  -- pinned clone of jqlang/jq for the router check
set -e
PIN=579e6f76cffd7643ba4002a2c3618a5ea710589a
# JQ_REPO: any clone of https://github.com/jqlang/jq that holds the pinned commit
git clone -q "${JQ_REPO:-/work/.mirror/jqlang+jq/repo}" "$1"
git -C "$1" checkout -q --detach "$PIN"
