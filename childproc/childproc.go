// Package childproc starts the child processes dbrig is responsible for
// (cluster nodes, worker processes) so that they die with dbrig, even when
// dbrig is SIGKILLed and runs no cleanup.
package childproc
