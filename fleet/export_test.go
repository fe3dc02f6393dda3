package fleet

// The in-package test helpers the external tests (package fleet_test) use too: those tests may
// import fleet/fleettest, which imports fleet, and so cannot be in package fleet.
var (
	ShareRunSpec = shareRunSpec
	Intended     = intended
	AddCounts    = addCounts
)
