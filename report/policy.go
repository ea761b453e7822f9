package report

// policyWords names the policy a run used as the reports say it, with
// how it was chosen unless --policy named it: "policy policies.yaml
// (found in the working directory), variant asan", "no policy
// (--no-policy)", "no policy (none found: no policies.yaml in ...)".
func policyWords(k *Checked) string {
	src := ""
	if k.PolicySource != "" && k.PolicySource != "--policy" {
		src = " (" + k.PolicySource + ")"
	}
	if k.Policy == nil {
		return "no policy" + src
	}
	s := "policy " + *k.Policy + src
	if k.Variant != "" {
		s += ", variant " + k.Variant
	}
	return s
}
