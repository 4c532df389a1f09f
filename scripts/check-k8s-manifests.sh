#!/usr/bin/env bash
# Checks deploy/k8s/*.yaml against the Kubernetes API schema, offline: kubernetes-validate
# (PyPI; it bundles the OpenAPI schemas of every Kubernetes release) in strict mode, so an
# unknown or misspelled field fails as well as a wrong type or a missing required field.
#
# Versions: 1.29, the first release with Indexed Jobs' backoffLimitPerIndex on by default
# (selfplay-job.yaml needs it), and the newest schema the package bundles.
#
# The checker is installed once into a virtual environment under the target directory. A
# copy of selfplay-job.yaml with a misspelled field must be rejected too: that proves the
# checker really checks.
#
# Usage: scripts/check-k8s-manifests.sh [FILE.yaml...]   (default: deploy/k8s/*.yaml)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
version=1.37.0
venv=${CARGO_TARGET_DIR:-$root/target}/k8s-validate-$version
if ! "$venv/bin/kubernetes-validate" --version >/dev/null 2>&1; then
  echo "== installing kubernetes-validate $version into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "kubernetes-validate==$version"
fi
validate() { "$venv/bin/kubernetes-validate" --strict --quiet "$@"; }

files=("$@")
if [ ${#files[@]} -eq 0 ]; then files=(deploy/k8s/*.yaml); fi
for kubernetes in 1.29 "${version%.*}"; do
  echo "== ${files[*]} against Kubernetes $kubernetes"
  validate --kubernetes-version "$kubernetes" "${files[@]}"
done

broken=$(mktemp --suffix=.yaml)
trap 'rm -f "$broken"' EXIT
sed 's/^\(  *\)parallelism:/\1paralelism:/' deploy/k8s/selfplay-job.yaml >"$broken"
if validate "$broken" >/dev/null 2>&1; then
  echo "error: a manifest with a misspelled field passed; the checker does not check" >&2
  exit 1
fi
echo "== ${#files[@]} manifests valid (and a misspelled field is caught)"
