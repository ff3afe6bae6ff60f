// goclock case: a wedge that stands beside the go board, two big player buttons on
// top, the display and a recessed arbiter key on the sloped front, a speaker grille
// between the buttons, the USB ports, a power switch at the back and the battery inside.
//
// Two printed parts: the shell (print it upside down, its flat top on the bed) and the
// base plate, joined by four M3 screws (self-tapping, 10 mm) from below. Every size is a
// parameter (millimetres); the parts' sizes are typical ones (docs/build.md lists the
// parts): measure yours and change them here or with openscad -D name=value.
//
//   openscad -o case.stl hardware/case.scad                      # both parts, laid out
//   openscad -o shell.stl -D 'part="shell"' hardware/case.scad
//   python -m tools.hardware.case                                 # STL + docs/img/case.png
//
// Part of goclock. MIT licence (LICENSE at the repository's root).

/* [What to make] */
part = "print";        // "print" (both, laid out), "shell", "base", "assembled", "exploded",
                       // "clash" (where parts collide: empty when everything fits)
board = "pico";        // "pico" (Pico / Pico W) or "esp32" (ESP32-DevKitC V4)
show_parts = false;    // "assembled": draw the buttons, display and keys in place
exploded_lift = 70;    // "exploded": how far the shell is lifted
$fn = 48;

/* [The case] */
case_w = 170;          // across: the two buttons' side to side
case_d = 80;           // front (display) to back (USB)
case_h = 52;           // the shell's height at the back (the base plate adds base_t)
front_h = 22;          // the shell's height at the front edge
top_d = 50;            // the flat top's depth, front to back
wall = 2.4;
corner_r = 5;          // rounding of the long edges
end_chamfer = 3;       // the chamfer of the two end faces' edges
base_t = 2.4;          // the base plate

/* [The player buttons, on top] */
button_hole = 30;      // snap-in arcade button, e.g. Sanwa OBSF-30 (30 mm hole)
button_spacing = 110;  // centre to centre
button_body_d = 33;    // (preview only) the housing and microswitch under the panel
button_body_h = 32;

/* [The arbiter key, recessed in the sloped front] */
arbiter_hole = 7;      // 7 mm panel push button (PBS-110 type)
arbiter_recess_d = 15; // the pocket a finger or a pen reaches into
arbiter_recess = 4;    // its depth: a sweeping hand does not press the key
arbiter_panel = 2;     // material left under the button's nut
arbiter_x = 48;        // from the middle, to the right seen from the front

/* [The display, in the sloped front] */
oled_window = [25, 14];     // SSD1306 0.96": active area 21.7 x 10.9 mm, with margin
oled_pcb = [27.5, 28];      // the module's board
oled_window_shift = 2;      // the glass sits towards the pin edge (up the slope)
oled_rim = 2;               // the rim inside that locates the module

/* [LED (optional: 0 leaves it out)] */
led_hole = 5;
led_x = -48;

/* [Speaker, under a grille between the buttons] */
speaker_d = 40;        // 40 mm, 4-8 ohm
speaker_h = 15;        // (preview only)
grille_d = 34;
grille_slot = 2.4;
grille_pitch = 5;

/* [The board, on standoffs, USB to the back] */
pico_size = [21, 51, 1];           // Pico / Pico W
pico_holes = [[4.8, 2], [16.2, 2], [4.8, 49], [16.2, 49]];  // 2.1 mm holes
esp32_size = [27.9, 54.4, 1.6];    // ESP32-DevKitC V4 (no mounting holes: corner posts)
standoff_h = 5;
usb_slot = [12, 8];                // a micro-USB plug's overmold, with room

/* [Battery and charger] */
battery = [60, 36, 8];      // LiPo pouch, 2000 mAh class (e.g. 603660 / 104050 sizes vary)
battery_gap = 4;            // from the left wall: under Black's button
battery_y = 30;
charger = [17.5, 28, 1.6];  // TP4056 USB-C module (W x D x PCB)
charger_x = 30;
charger_slot = [12.5, 7];
switch_cut = [13, 9];       // snap-in mini rocker switch (KCD11 10 x 15 mm class)
switch_x = -30;

/* [The amplifier, on the plate (preview only)] */
amp = [17.8, 19.3];    // MAX98357A breakout
amp_xy = [-24, 62];

/* [Screws] */
screw_d = 2.6;         // M3 self-tapping pilot
screw_head = 6.2;
boss_d = 7.5;
boss_h = 12;

// ----- derived ------------------------------------------------------------------------

slope_run = case_d - top_d;
slope_rise = case_h - front_h;
slope_a = atan2(slope_rise, slope_run);
slope_len = sqrt(slope_run * slope_run + slope_rise * slope_rise);
top_y = case_d - top_d / 2;               // the buttons' and the speaker's row
bsize = board == "esp32" ? esp32_size : pico_size;
board_y0 = case_d - wall - 1.5 - bsize[1]; // the board's front edge
usb_z = standoff_h + bsize[2] + (board == "esp32" ? 1.5 : 1.6);  // above the plate
// The bosses overlap the walls a little (a boss only touching a wall is not one solid).
boss_xy = [for (sx = [-1, 1], y = [wall + boss_d / 2 - 0.5, case_d - wall - boss_d / 2 + 0.5])
    [sx * (case_w / 2 - wall - boss_d / 2 + 0.5), y]];
battery_x = -(case_w / 2 - wall - battery_gap - (battery[0] + 4.2) / 2);
eps = 0.01;

// ----- the shell ----------------------------------------------------------------------

// The side profile (y: front to back, z: up), convex.
module profile2d() {
    polygon([[0, 0], [case_d, 0], [case_d, case_h], [case_d - top_d, case_h], [0, front_h]]);
}

// The profile `inset` inward, long edges rounded; its bottom edge stays square (to sit
// on the base plate) and reaches `below` under z = 0 (the hollow: open at the bottom).
module rounded2d(inset, below = 0) {
    hull() {
        offset(r = corner_r - inset) offset(delta = -corner_r) profile2d();
        translate([inset, -below]) square([case_d - 2 * inset, below + eps]);
    }
}

// Along x: the profile, its two end faces chamfered (a hull: the profile is convex).
module body(inset, below = 0) {
    w = case_w - 2 * inset;
    hull() {
        along_x(w - 2 * end_chamfer) rounded2d(inset, below);
        along_x(w) hull() {
            offset(delta = -end_chamfer) rounded2d(inset);
            translate([inset + end_chamfer, -below])
                square([case_d - 2 * inset - 2 * end_chamfer, below + eps]);
        }
    }
}

module along_x(w) {
    rotate([90, 0, 90]) linear_extrude(height = w, center = true) children();
}

// A frame on the sloped front: x across, y up the slope from its foot, z out of it.
module on_slope(x, s) {
    translate([x, s * cos(slope_a), front_h + s * sin(slope_a)]) rotate([slope_a, 0, 0]) children();
}

module on_top(x, y) {
    translate([x, y, case_h]) children();
}

module shell() {
    difference() {
        union() {
            difference() {
                body(0);
                body(wall, below = 1);  // hollow, open at the bottom
            }
            shell_inside();
        }
        shell_cuts();
    }
}

module shell_inside() {
    // Screw bosses in the four corners, tied to the side walls.
    for (p = boss_xy) translate([p[0], p[1], 0]) hull() {
        cylinder(d = boss_d, h = boss_h);
        translate([sign(p[0]) * boss_d / 2, 0, boss_h / 2]) cube([1, boss_d, boss_h], center = true);
    }
    // The arbiter key's boss: the recess needs more than a wall's depth.
    on_slope(arbiter_x, slope_len / 2)
        translate([0, 0, -(arbiter_recess + arbiter_panel)])
            cylinder(d = arbiter_recess_d + 6, h = arbiter_recess + arbiter_panel - wall / 2);
    // The display module's locating rim.
    on_slope(0, slope_len / 2) translate([0, 0, -wall - oled_rim / 2 + eps])
        difference() {
            cube([oled_pcb[0] + 0.6 + 2 * 1.6, oled_pcb[1] + 0.6 + 2 * 1.6, oled_rim], center = true);
            cube([oled_pcb[0] + 0.6, oled_pcb[1] + 0.6, oled_rim + 1], center = true);
        }
    // The speaker's ring under the grille.
    on_top(0, top_y) translate([0, 0, -wall - 3 + eps]) difference() {
        cylinder(d = speaker_d + 4, h = 3);
        translate([0, 0, -1]) cylinder(d = speaker_d + 0.8, h = 5);
    }
}

module shell_cuts() {
    // Player buttons.
    for (sx = [-1, 1]) on_top(sx * button_spacing / 2, top_y)
        cylinder(d = button_hole, h = 4 * wall, center = true);
    // Speaker grille: slots inside a circle.
    n = floor(grille_d / 2 / grille_pitch);
    for (i = [-n:n]) {
        x = i * grille_pitch;
        len = 2 * sqrt(max(0, grille_d * grille_d / 4 - x * x)) - grille_slot;
        if (len > grille_slot) on_top(x, top_y) cube([grille_slot, len, 4 * wall], center = true);
    }
    // The display's window.
    on_slope(0, slope_len / 2 + oled_window_shift)
        cube([oled_window[0], oled_window[1], 6 * wall], center = true);
    // The arbiter key: a pocket, and the button's hole at its bottom.
    on_slope(arbiter_x, slope_len / 2) {
        translate([0, 0, -arbiter_recess]) cylinder(d = arbiter_recess_d, h = arbiter_recess + 5);
        cylinder(d = arbiter_hole, h = 30, center = true);
    }
    if (led_hole > 0) on_slope(led_x, slope_len / 2) cylinder(d = led_hole, h = 30, center = true);
    // At the back: the board's USB, the charger's USB, the power switch.
    translate([0, case_d, usb_z]) slot(usb_slot);
    translate([charger_x, case_d, charger[2] + 1.6]) slot(charger_slot);
    translate([switch_x, case_d, case_h / 2]) cube([switch_cut[0], 6 * wall, switch_cut[1]], center = true);
    // Pilot holes in the bosses.
    for (p = boss_xy) translate([p[0], p[1], -1]) cylinder(d = screw_d, h = boss_h - 1);
}

module slot(size) {
    r = min(size[0], size[1]) / 4;
    rotate([90, 0, 0]) linear_extrude(height = 6 * wall, center = true)
        offset(r = r) square([size[0] - 2 * r, size[1] - 2 * r], center = true);
}

// ----- the base plate -----------------------------------------------------------------

module footprint2d() {
    hull() {
        translate([-(case_w / 2 - end_chamfer), 0]) square([case_w - 2 * end_chamfer, case_d]);
        translate([-case_w / 2, end_chamfer]) square([case_w, case_d - 2 * end_chamfer]);
    }
}

module base() {
    difference() {
        union() {
            linear_extrude(height = base_t) footprint2d();
            translate([0, 0, base_t - eps]) base_inside();
        }
        for (p = boss_xy) translate([p[0], p[1], 0]) {
            translate([0, 0, -1]) cylinder(d = 3.4, h = base_t + 2);
            translate([0, 0, -eps]) cylinder(d1 = screw_head, d2 = 3.4, h = 1.6);  // countersunk
        }
        // Recesses for four stick-on rubber feet (10 mm).
        for (sx = [-1, 1], y = [14, case_d - 14]) translate([sx * (case_w / 2 - 22), y, -eps])
            cylinder(d = 10.5, h = 0.8);
    }
}

module base_inside() {
    // Tabs that locate the shell on the plate (inside its walls).
    for (t = [[-(case_w / 2 - wall - 1.1), case_d / 2, 2.2, 24],
              [case_w / 2 - wall - 1.1, case_d / 2, 2.2, 24],
              [0, wall + 1.1, 24, 2.2]])
        translate([t[0], t[1], 1.5]) cube([t[2], t[3], 3], center = true);
    // The board: standoffs (Pico) or corner posts (DevKitC, which has no holes).
    translate([-bsize[0] / 2, board_y0, 0]) {
        if (board == "esp32") {
            for (c = [[0, 0], [1, 0], [0, 1], [1, 1]]) translate([c[0] * bsize[0], c[1] * bsize[1], 0])
                mirror([c[0], 0, 0]) mirror([0, c[1], 0]) corner_post();
        } else {
            for (h = pico_holes) translate([h[0], h[1], 0]) difference() {
                cylinder(d = 4.6, h = standoff_h);
                cylinder(d = 1.8, h = standoff_h + 1);  // M2 self-tapping
            }
        }
    }
    // The battery bay: a low wall round the cell, open at one corner for its leads.
    translate([battery_x, battery_y, 0]) difference() {
        cube([battery[0] + 1 + 3.2, battery[1] + 1 + 3.2, 6 * 2], center = true);
        cube([battery[0] + 1, battery[1] + 1, 20], center = true);
        translate([battery[0] / 2, battery[1] / 2, 0]) cube([16, 16, 20], center = true);
        translate([0, 0, -10 - eps]) cube([200, 200, 20], center = true);  // nothing below
    }
    // The charger module's rails, its USB at the back wall.
    translate([charger_x, case_d - wall - 0.5 - charger[1] / 2, 0]) for (sx = [-1, 1])
        translate([sx * (charger[0] / 2 + 0.3 + 0.8), 0, 1.5]) cube([1.6, charger[1] - 4, 3], center = true);
}

module corner_post() {
    // An L round the board's corner with a ledge at standoff height.
    difference() {
        translate([-1.8, -1.8, 0]) cube([5.8, 5.8, standoff_h + bsize[2] + 1.5]);
        translate([0, 0, standoff_h]) cube([10, 10, 10]);
        translate([1.5, 1.5, -1]) cube([10, 10, 20]);
    }
}

// ----- the parts, for the preview -----------------------------------------------------

// What shows from outside, in the shell's frame: the two buttons (Black's on the left,
// White's on the right, seen from the front), the display, the arbiter key, the LED.
module parts() {
    for (sx = [-1, 1]) on_top(sx * button_spacing / 2, top_y) color(sx < 0 ? "#1b1b1b" : "#f4f4f0") {
        cylinder(d = button_hole + 6, h = 2);
        translate([0, 0, 2]) scale([1, 1, 0.35]) sphere(d = button_hole - 1);
    }
    on_slope(0, slope_len / 2 + oled_window_shift) {
        color("#111") translate([0, 0, -wall - 0.5]) cube([oled_window[0] + 2, oled_window[1] + 2, 0.8], center = true);
        color("#29b6f6") translate([0, 0, -wall + 0.2]) cube([oled_window[0] - 3, oled_window[1] - 3, 0.3], center = true);
    }
    color("#c62828") on_slope(arbiter_x, slope_len / 2) translate([0, 0, -arbiter_recess])
        cylinder(d = arbiter_hole + 3, h = arbiter_recess - 1.2);
    if (led_hole > 0) color("#ffb300") on_slope(led_x, slope_len / 2) translate([0, 0, -1.5])
        cylinder(d = led_hole - 0.2, h = 1.6);
}

// What is inside, for the exploded view: on the plate (plate frame) ...
module inside_parts() {
    color("#2e7d32") translate([-bsize[0] / 2, board_y0, base_t + standoff_h]) cube(bsize);
    color("#bdbdbd") translate([-4, case_d - wall - 4.5, base_t + standoff_h + bsize[2]]) cube([8, 5, 3]);
    color("#37474f") translate([battery_x, battery_y, base_t + battery[2] / 2]) cube(battery - [0, 0, 0.5], center = true);
    color("#1565c0") translate([charger_x - charger[0] / 2, case_d - wall - 0.5 - charger[1], base_t])
        cube(charger);
    color("#6a1b9a") translate([amp_xy[0] - amp[0] / 2, amp_xy[1] - amp[1] / 2, base_t + 3]) cube([amp[0], amp[1], 1.6]);
}

// ... and under the shell (shell frame).
module shell_parts() {
    for (sx = [-1, 1]) on_top(sx * button_spacing / 2, top_y)
        color("#616161") translate([0, 0, -button_body_h]) cylinder(d = button_body_d - 6, h = button_body_h - wall);
    color("#455a64") on_top(0, top_y) translate([0, 0, -wall - speaker_h]) cylinder(d = speaker_d, h = speaker_h - 0.5);
    color("#1a237e") on_slope(0, slope_len / 2) translate([0, 0, -wall - 1.7]) cube([oled_pcb[0], oled_pcb[1], 1.2], center = true);
}

// ----- what is made -------------------------------------------------------------------

if (part == "shell") {
    shell();
} else if (part == "base") {
    base();
} else if (part == "assembled") {
    color("#6d4c41") base();
    translate([0, 0, base_t]) {
        color("#d8b27a") shell();  // the colour of kaya
        if (show_parts) parts();
    }
} else if (part == "clash") {
    // What hangs from the shell (buttons, speaker, display) against what stands on the
    // plate, and what stands on the plate against the shell's walls: nothing, if it fits.
    intersection() {
        translate([0, 0, base_t]) shell_parts();
        union() { base(); inside_parts(); }
    }
    intersection() {
        translate([0, 0, base_t]) shell();
        inside_parts();
    }
} else if (part == "exploded") {
    // The shell lifted off the plate: where each part goes.
    color("#6d4c41") base();
    inside_parts();
    translate([0, 0, base_t + exploded_lift]) {
        color("#d8b27a") shell();
        parts();
        shell_parts();
    }
} else {
    // Laid out for printing: the shell upside down (its top on the bed), behind the plate.
    translate([0, 2 * case_d + 10, case_h]) rotate([180, 0, 0]) shell();
    base();
}
