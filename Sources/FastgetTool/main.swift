// The `fastget` executable. Everything it does lives in FastgetCLI, which the tests import;
// this target carries the release build's static-link flags (Package.swift).
import FastgetCLI

CommandLineTool.main()
