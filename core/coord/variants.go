package coord

import (
	"fmt"
	"slices"
	"strings"
)

// Variants select historical behaviours so that the harness can show each
// hazard and its fix side by side. The zero value is the fixed design.
// Keys and values are those of simrun's --variant key=value.
type Variants struct {
	ExpiryFence         string // "generation" (default) | "none"            H1
	DeferredFence       string // "generation" (default) | "none"            H9
	SavepointWait       string // "outside-lock" (default) | "under-lock"    H5
	TriggerErrors       string // "report" (default) | "silent"              H4
	BarrierContinuation string // "async" (default) | "inline"               H6
	ExpiryExec          string // "executor" (default) | "inline"
	ExpiryFallback      string // "inline" (default) | "drop"                  H11
	WatchdogRecheck     string // "pending" (default) | "none"                 H2
	Retention           string // "durable" (default) | "memory"             H10
	IdleRestore         string // "rebuild" (default) | "forget"             #12042
}

// variantKeys lists each key with its allowed values, default first.
var variantKeys = []struct {
	key    string
	values []string
	field  func(*Variants) *string
}{
	{"expiry-fence", []string{"generation", "none"}, func(v *Variants) *string { return &v.ExpiryFence }},
	{"deferred-fence", []string{"generation", "none"}, func(v *Variants) *string { return &v.DeferredFence }},
	{"savepoint-wait", []string{"outside-lock", "under-lock"}, func(v *Variants) *string { return &v.SavepointWait }},
	{"trigger-errors", []string{"report", "silent"}, func(v *Variants) *string { return &v.TriggerErrors }},
	{"barrier-continuation", []string{"async", "inline"}, func(v *Variants) *string { return &v.BarrierContinuation }},
	{"expiry-exec", []string{"executor", "inline"}, func(v *Variants) *string { return &v.ExpiryExec }},
	{"expiry-fallback", []string{"inline", "drop"}, func(v *Variants) *string { return &v.ExpiryFallback }},
	{"watchdog-recheck", []string{"pending", "none"}, func(v *Variants) *string { return &v.WatchdogRecheck }},
	{"retention", []string{"durable", "memory"}, func(v *Variants) *string { return &v.Retention }},
	{"idle-restore", []string{"rebuild", "forget"}, func(v *Variants) *string { return &v.IdleRestore }},
}

// VariantKeys returns "key=v1|v2" lines, defaults first, for listings.
func VariantKeys() []string {
	var out []string
	for _, k := range variantKeys {
		out = append(out, k.key+"="+strings.Join(k.values, "|"))
	}
	return out
}

// Set applies key=value; it errors on an unknown key or value.
func (v *Variants) Set(key, value string) error {
	for _, k := range variantKeys {
		if k.key != key {
			continue
		}
		if !slices.Contains(k.values, value) {
			return fmt.Errorf("unknown value %q for variant %s (want %s)", value, key, strings.Join(k.values, " or "))
		}
		*k.field(v) = value
		return nil
	}
	return fmt.Errorf("unknown variant key %q", key)
}

// Normalize fills defaults.
func (v Variants) Normalize() Variants {
	for _, k := range variantKeys {
		if p := k.field(&v); *p == "" {
			*p = k.values[0]
		}
	}
	return v
}

// String lists the non-default variants, "fixed" when none.
func (v Variants) String() string {
	v = v.Normalize()
	var parts []string
	for _, k := range variantKeys {
		if p := k.field(&v); *p != k.values[0] {
			parts = append(parts, k.key+"="+*p)
		}
	}
	if len(parts) == 0 {
		return "fixed"
	}
	return strings.Join(parts, ",")
}
