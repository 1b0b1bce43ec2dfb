// Package unlinked holds the tests of a program that imports package
// config and none of the backends that register schemes with it: what
// such a program can open (file://, mem://) and what it is told for the
// others. It has no code.
package unlinked
