package model

// OpenRegions tracks the regions open on every location, innermost last,
// as a reader or writer needs to name the region of a Leave that gives
// none (region 0) or to close the instances a Leave of an outer region
// ends, as [KindLeave] defines.
//
// It keeps a count of the open instances of each region of a location, so
// a Leave of a region that is not open costs O(1), not a search of the
// whole stack, and a Leave that closes instances opened after its region
// pays once for each of them. Once the stacks and counts have grown to the
// trace's depth and regions, Enter and Leave allocate nothing.
//
// The zero value is ready to use. Its memory grows with the largest LocID
// given to Enter, the deepest stack and the number of distinct regions
// entered per location. An OpenRegions is not safe for concurrent use.
type OpenRegions struct {
	locs []openLoc // by LocID
}

// openLoc is one location's open regions, innermost last, with the number
// of open instances of each region.
type openLoc struct {
	regs []RegionID
	n    map[RegionID]int32
}

// Enter opens an instance of region r on location l. Region 0 is a region
// like any other here; callers that treat it as undefined skip it.
func (o *OpenRegions) Enter(l LocID, r RegionID) {
	for int(l) >= len(o.locs) {
		o.locs = append(o.locs, openLoc{})
	}
	st := &o.locs[l]
	st.regs = append(st.regs, r)
	if st.n == nil {
		st.n = make(map[RegionID]int32)
	}
	st.n[r]++
}

// Leave closes the innermost open instance of region r on location l (of
// any region when r is 0), together with the instances opened after it,
// and returns the region it closed and true. When no instance is open it
// changes nothing and returns r and false.
func (o *OpenRegions) Leave(l LocID, r RegionID) (RegionID, bool) {
	if int(l) >= len(o.locs) {
		return r, false
	}
	st := &o.locs[l]
	if len(st.regs) == 0 || (r != 0 && st.n[r] == 0) {
		return r, false
	}
	i := len(st.regs) - 1
	if r != 0 {
		for st.regs[i] != r {
			i--
		}
	}
	r = st.regs[i]
	for _, x := range st.regs[i:] {
		st.n[x]--
	}
	st.regs = st.regs[:i]
	return r, true
}

// Depth returns the number of instances open on location l.
func (o *OpenRegions) Depth(l LocID) int {
	if int(l) >= len(o.locs) {
		return 0
	}
	return len(o.locs[l].regs)
}

// Reset closes every open instance on every location, keeping the memory
// grown so far for reuse.
func (o *OpenRegions) Reset() {
	for i := range o.locs {
		st := &o.locs[i]
		st.regs = st.regs[:0]
		clear(st.n)
	}
}
