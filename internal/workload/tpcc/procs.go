package tpcc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
)

// implementation = "procedures": each transaction is one call of a routine
// stored in the database, as HammerDB runs TPC-C by default on PostgreSQL
// (PL/pgSQL functions) and MySQL/MariaDB (SQL/PSM procedures). The routines
// are fairbench's own, written from the specification (clauses 2.4–2.8);
// HammerDB's procedures (neword, payment, delivery, ostat, slev) fixed the
// shape: one round trip per transaction, the transaction's reads and writes
// in the server. Unlike HammerDB's, they draw nothing themselves: the worker
// draws the inputs (input.go) for both implementations, so the two run the
// same transactions.
//
// Outputs the specification only displays (New-Order's total, Payment's
// addresses) are read as the transaction profile says, into variables.
// Order-Status returns its order lines and Stock-Level its count as a result,
// which the caller reads; the other three return nothing the caller needs.

// invalidItemMessage is the error New-Order raises when an item does not
// exist (clause 2.4.2.3), after which the database has rolled the whole
// transaction back; procTxns recognises it and returns errRolledBack. The
// text is unique to fairbench, so no other failure is mistaken for it.
const invalidItemMessage = "fairbench_tpcc_new_order: item number is not valid"

// The Delivery routines loop over districts 1–10 written as a literal (SQL
// text must be a constant); this fails to compile if districtsPerWarehouse
// ever differs.
const _ = uint(districtsPerWarehouse-10) + uint(10-districtsPerWarehouse)

// procNames are the five routines, dropped and created by installProcedures.
var procNames = []string{"fairbench_tpcc_new_order", "fairbench_tpcc_payment", "fairbench_tpcc_order_status",
	"fairbench_tpcc_delivery", "fairbench_tpcc_stock_level"}

// PostgreSQL: PL/pgSQL functions. A function called in autocommit is one
// transaction: a RAISE anywhere rolls back everything it did, and the
// session is idle again after the error. VOLATILE functions (the three that
// write) take a new snapshot per statement at READ COMMITTED, as the same
// statements sent by a client do; the two read-only ones are STABLE, so each
// reads one snapshot. Writes use UPDATE … RETURNING, which reads and locks the
// row in one statement, where the profile reads a row and then updates it.

const procPGNewOrder = `CREATE OR REPLACE FUNCTION fairbench_tpcc_new_order(
	p_w_id int, p_d_id int, p_c_id int, p_all_local int,
	p_numbers int[], p_items int[], p_supply_w_ids int[], p_quantities int[]) RETURNS numeric
LANGUAGE plpgsql AS $fb$
DECLARE
	v_ol_cnt int := cardinality(p_items);
	v_discount numeric; v_last varchar; v_credit char(2); v_w_tax numeric; v_d_tax numeric;
	v_o_id int;
	v_price numeric; v_i_name varchar; v_i_data varchar;
	v_dist_info char(24); v_s_data varchar;
	v_amount numeric; v_total numeric := 0;
BEGIN
	SELECT c_discount, c_last, c_credit, w_tax INTO STRICT v_discount, v_last, v_credit, v_w_tax
	FROM customer, warehouse
	WHERE w_id = p_w_id AND c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = p_c_id;

	UPDATE district SET d_next_o_id = d_next_o_id + 1
	WHERE d_w_id = p_w_id AND d_id = p_d_id
	RETURNING d_next_o_id - 1, d_tax INTO STRICT v_o_id, v_d_tax;

	INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
	VALUES (v_o_id, p_d_id, p_w_id, p_c_id, localtimestamp, NULL, v_ol_cnt, p_all_local);
	INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d_id, p_w_id);

	FOR i IN 1 .. v_ol_cnt LOOP
		SELECT i_price, i_name, i_data INTO v_price, v_i_name, v_i_data FROM item WHERE i_id = p_items[i];
		IF NOT FOUND THEN
			-- Clause 2.4.2.3: the whole transaction rolls back, which the
			-- error does; the caller tells it from a failure by the message.
			RAISE EXCEPTION '` + invalidItemMessage + `';
		END IF;

		-- Clause 2.4.2.2: s_quantity loses the quantity, and gains 91 when
		-- fewer than 10 would be left.
		UPDATE stock SET
			s_quantity = CASE WHEN s_quantity - p_quantities[i] >= 10 THEN s_quantity - p_quantities[i]
				ELSE s_quantity - p_quantities[i] + 91 END,
			s_ytd = s_ytd + p_quantities[i],
			s_order_cnt = s_order_cnt + 1,
			s_remote_cnt = s_remote_cnt + CASE WHEN p_supply_w_ids[i] <> p_w_id THEN 1 ELSE 0 END
		WHERE s_w_id = p_supply_w_ids[i] AND s_i_id = p_items[i]
		RETURNING CASE p_d_id WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03
			WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07
			WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09 ELSE s_dist_10 END, s_data
		INTO STRICT v_dist_info, v_s_data;

		v_amount := p_quantities[i] * v_price;
		INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
			ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
		VALUES (v_o_id, p_d_id, p_w_id, p_numbers[i], p_items[i], p_supply_w_ids[i], NULL, p_quantities[i], v_amount, v_dist_info);
		v_total := v_total + v_amount;
	END LOOP;
	-- The total the terminal displays (clause 2.4.3.3).
	RETURN v_total * (1 - v_discount) * (1 + v_w_tax + v_d_tax);
END
$fb$`

const procPGPayment = `CREATE OR REPLACE FUNCTION fairbench_tpcc_payment(
	p_w_id int, p_d_id int, p_c_w_id int, p_c_d_id int, p_c_id int, p_c_last varchar, p_amount numeric) RETURNS int
LANGUAGE plpgsql AS $fb$
DECLARE
	v_w_name varchar; v_w_street_1 varchar; v_w_street_2 varchar; v_w_city varchar; v_w_state char(2); v_w_zip char(9);
	v_d_name varchar; v_d_street_1 varchar; v_d_street_2 varchar; v_d_city varchar; v_d_state char(2); v_d_zip char(9);
	v_c_id int := p_c_id; v_n int;
	v_first varchar; v_middle char(2); v_last varchar; v_street_1 varchar; v_street_2 varchar; v_city varchar;
	v_state char(2); v_zip char(9); v_phone char(16); v_since timestamp; v_credit char(2); v_credit_lim numeric;
	v_discount numeric; v_balance numeric; v_data varchar;
BEGIN
	UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w_id
	RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip
	INTO STRICT v_w_name, v_w_street_1, v_w_street_2, v_w_city, v_w_state, v_w_zip;

	UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w_id AND d_id = p_d_id
	RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip
	INTO STRICT v_d_name, v_d_street_1, v_d_street_2, v_d_city, v_d_state, v_d_zip;

	IF v_c_id = 0 THEN
		-- Clause 2.5.2.2: of the customers with this last name, sorted by
		-- first name, the one at position ceil(n/2).
		SELECT count(*) INTO v_n FROM customer
		WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_last = p_c_last;
		IF v_n = 0 THEN
			RAISE EXCEPTION 'fairbench_tpcc_payment: no customer named %', p_c_last;
		END IF;
		SELECT c_id INTO v_c_id FROM customer
		WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_last = p_c_last
		ORDER BY c_first, c_id OFFSET (v_n + 1) / 2 - 1 LIMIT 1;
	END IF;

	-- A bad-credit customer's c_data gets the payment's ids and amount at
	-- its left (as client.go writes them), cut to its 500 characters.
	UPDATE customer SET
		c_balance = c_balance - p_amount,
		c_ytd_payment = c_ytd_payment + p_amount,
		c_payment_cnt = c_payment_cnt + 1,
		c_data = CASE WHEN c_credit = 'BC' THEN left(v_c_id || ' ' || p_c_d_id || ' ' || p_c_w_id || ' ' ||
			p_d_id || ' ' || p_w_id || ' ' || p_amount || ' | ' || c_data, 500) ELSE c_data END
	WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id
	RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since,
		c_credit, c_credit_lim, c_discount, c_balance, CASE WHEN c_credit = 'BC' THEN left(c_data, 200) END
	INTO STRICT v_first, v_middle, v_last, v_street_1, v_street_2, v_city, v_state, v_zip, v_phone, v_since,
		v_credit, v_credit_lim, v_discount, v_balance, v_data;

	INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
	VALUES (v_c_id, p_c_d_id, p_c_w_id, p_d_id, p_w_id, localtimestamp, p_amount, v_w_name || '    ' || v_d_name);
	RETURN v_c_id;
END
$fb$`

// procPGOrderStatus returns the order lines of the customer's newest order (none
// when the customer has no order).
const procPGOrderStatus = `CREATE OR REPLACE FUNCTION fairbench_tpcc_order_status(
	p_w_id int, p_d_id int, p_c_id int, p_c_last varchar)
RETURNS TABLE (line_i_id int, line_supply_w_id int, line_quantity int, line_amount numeric, line_delivery_d timestamp)
LANGUAGE plpgsql STABLE AS $fb$
DECLARE
	v_c_id int := p_c_id; v_n int;
	v_balance numeric; v_first varchar; v_middle char(2); v_last varchar;
	v_o_id int; v_entry_d timestamp; v_carrier_id int;
BEGIN
	IF v_c_id = 0 THEN
		SELECT count(*) INTO v_n FROM customer
		WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_last = p_c_last;
		IF v_n = 0 THEN
			RAISE EXCEPTION 'fairbench_tpcc_order_status: no customer named %', p_c_last;
		END IF;
		SELECT c_id INTO v_c_id FROM customer
		WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_last = p_c_last
		ORDER BY c_first, c_id OFFSET (v_n + 1) / 2 - 1 LIMIT 1;
	END IF;
	SELECT c_balance, c_first, c_middle, c_last INTO STRICT v_balance, v_first, v_middle, v_last
	FROM customer WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = v_c_id;

	SELECT o_id, o_entry_d, o_carrier_id INTO v_o_id, v_entry_d, v_carrier_id
	FROM orders WHERE o_w_id = p_w_id AND o_d_id = p_d_id AND o_c_id = v_c_id
	ORDER BY o_id DESC LIMIT 1;
	IF NOT FOUND THEN
		RETURN;
	END IF;
	RETURN QUERY SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d
	FROM order_line WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id AND ol_o_id = v_o_id;
END
$fb$`

// procPGDelivery returns how many districts had an order to deliver.
const procPGDelivery = `CREATE OR REPLACE FUNCTION fairbench_tpcc_delivery(p_w_id int, p_carrier_id int) RETURNS int
LANGUAGE plpgsql AS $fb$
DECLARE
	v_o_id int; v_c_id int; v_total numeric; v_now timestamp := localtimestamp; v_delivered int := 0;
BEGIN
	FOR v_d_id IN 1 .. 10 LOOP -- districtsPerWarehouse
		-- The district's oldest new order, deleted in the statement that
		-- finds it; a concurrent Delivery that deleted it first leaves
		-- nothing here, and the district is skipped (clause 2.7.4.2).
		DELETE FROM new_order
		WHERE no_w_id = p_w_id AND no_d_id = v_d_id AND no_o_id =
			(SELECT min(no_o_id) FROM new_order WHERE no_w_id = p_w_id AND no_d_id = v_d_id)
		RETURNING no_o_id INTO v_o_id;
		CONTINUE WHEN NOT FOUND;

		UPDATE orders SET o_carrier_id = p_carrier_id
		WHERE o_w_id = p_w_id AND o_d_id = v_d_id AND o_id = v_o_id
		RETURNING o_c_id INTO STRICT v_c_id;

		WITH delivered AS (
			UPDATE order_line SET ol_delivery_d = v_now
			WHERE ol_w_id = p_w_id AND ol_d_id = v_d_id AND ol_o_id = v_o_id
			RETURNING ol_amount)
		SELECT coalesce(sum(ol_amount), 0) INTO v_total FROM delivered;

		UPDATE customer SET c_balance = c_balance + v_total, c_delivery_cnt = c_delivery_cnt + 1
		WHERE c_w_id = p_w_id AND c_d_id = v_d_id AND c_id = v_c_id;
		v_delivered := v_delivered + 1;
	END LOOP;
	RETURN v_delivered;
END
$fb$`

const procPGStockLevel = `CREATE OR REPLACE FUNCTION fairbench_tpcc_stock_level(p_w_id int, p_d_id int, p_threshold int) RETURNS bigint
LANGUAGE plpgsql STABLE AS $fb$
DECLARE
	v_next_o_id int; v_count bigint;
BEGIN
	SELECT d_next_o_id INTO STRICT v_next_o_id FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;
	SELECT count(DISTINCT s_i_id) INTO v_count
	FROM order_line JOIN stock ON s_w_id = p_w_id AND s_i_id = ol_i_id
	WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id
		AND ol_o_id >= v_next_o_id - 20 AND ol_o_id < v_next_o_id
		AND s_quantity < p_threshold;
	RETURN v_count;
END
$fb$`

// MySQL and MariaDB: SQL/PSM procedures. A CALL is no transaction of its
// own (with autocommit on, each statement inside commits by itself; with
// autocommit=0 in the URL the first one opens a transaction that outlives the
// call), so every procedure brackets its work in START TRANSACTION … COMMIT,
// and its exit handler rolls back and re-raises the very error (number and
// SQLSTATE kept, so the runner still sees a deadlock as a deadlock): whatever
// happens, the call returns with no transaction open. Result sets are sent
// before the COMMIT, so that no statement after it opens a transaction under
// autocommit=0.
//
// MySQL has no UPDATE … RETURNING (nor MariaDB 10.11): a row read and then
// updated is read with FOR UPDATE. Local names carry a p_ or v_ prefix
// because in a procedure a local variable wins over a column of the same name.

const procMyRollback = `DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;`

// procMyNewOrder takes the lines as four comma-separated lists, which it
// consumes from the left, one number per line.
const procMyNewOrder = `CREATE PROCEDURE fairbench_tpcc_new_order(
	p_w_id INT, p_d_id INT, p_c_id INT, p_all_local INT, p_ol_cnt INT,
	p_numbers VARCHAR(2000), p_items VARCHAR(2000), p_supply_w_ids VARCHAR(2000), p_quantities VARCHAR(2000))
BEGIN
	DECLARE v_discount, v_w_tax, v_d_tax DECIMAL(4,4);
	DECLARE v_last VARCHAR(16);
	DECLARE v_credit CHAR(2);
	DECLARE v_o_id, v_number, v_i_id, v_supply_w_id, v_quantity, v_s_quantity INT;
	DECLARE v_i INT DEFAULT 1;
	DECLARE v_price DECIMAL(5,2);
	DECLARE v_i_name VARCHAR(24);
	DECLARE v_i_data, v_s_data VARCHAR(50);
	DECLARE v_dist_info CHAR(24);
	DECLARE v_amount DECIMAL(6,2);
	DECLARE v_total DECIMAL(12,2) DEFAULT 0;
	DECLARE v_found INT;
	-- A SELECT … INTO that finds no row leaves the variables as they were
	-- and is no error; v_found says which happened.
	DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
	` + procMyRollback + `
	START TRANSACTION;
	SELECT c_discount, c_last, c_credit, w_tax INTO v_discount, v_last, v_credit, v_w_tax
	FROM customer, warehouse
	WHERE w_id = p_w_id AND c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = p_c_id;

	SELECT d_next_o_id, d_tax INTO v_o_id, v_d_tax FROM district
	WHERE d_w_id = p_w_id AND d_id = p_d_id FOR UPDATE;
	UPDATE district SET d_next_o_id = v_o_id + 1 WHERE d_w_id = p_w_id AND d_id = p_d_id;

	INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
	VALUES (v_o_id, p_d_id, p_w_id, p_c_id, NOW(), NULL, p_ol_cnt, p_all_local);
	INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d_id, p_w_id);

	WHILE v_i <= p_ol_cnt DO
		SET v_number = CAST(SUBSTRING_INDEX(p_numbers, ',', 1) AS SIGNED),
			p_numbers = SUBSTRING(p_numbers, LOCATE(',', p_numbers) + 1),
			v_i_id = CAST(SUBSTRING_INDEX(p_items, ',', 1) AS SIGNED),
			p_items = SUBSTRING(p_items, LOCATE(',', p_items) + 1),
			v_supply_w_id = CAST(SUBSTRING_INDEX(p_supply_w_ids, ',', 1) AS SIGNED),
			p_supply_w_ids = SUBSTRING(p_supply_w_ids, LOCATE(',', p_supply_w_ids) + 1),
			v_quantity = CAST(SUBSTRING_INDEX(p_quantities, ',', 1) AS SIGNED),
			p_quantities = SUBSTRING(p_quantities, LOCATE(',', p_quantities) + 1);

		SET v_found = 1;
		SELECT i_price, i_name, i_data INTO v_price, v_i_name, v_i_data FROM item WHERE i_id = v_i_id;
		IF v_found = 0 THEN
			-- Clause 2.4.2.3: the exit handler rolls the whole transaction
			-- back; the caller tells this from a failure by the message.
			SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '` + invalidItemMessage + `';
		END IF;

		SET v_found = 1;
		SELECT s_quantity, ELT(p_d_id, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05,
				s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10), s_data
		INTO v_s_quantity, v_dist_info, v_s_data
		FROM stock WHERE s_w_id = v_supply_w_id AND s_i_id = v_i_id FOR UPDATE;
		IF v_found = 0 THEN
			SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'fairbench_tpcc_new_order: no stock row for the item';
		END IF;
		-- Clause 2.4.2.2: s_quantity loses the quantity, and gains 91 when
		-- fewer than 10 would be left.
		UPDATE stock SET
			s_quantity = IF(v_s_quantity - v_quantity >= 10, v_s_quantity - v_quantity, v_s_quantity - v_quantity + 91),
			s_ytd = s_ytd + v_quantity,
			s_order_cnt = s_order_cnt + 1,
			s_remote_cnt = s_remote_cnt + IF(v_supply_w_id <> p_w_id, 1, 0)
		WHERE s_w_id = v_supply_w_id AND s_i_id = v_i_id;

		SET v_amount = v_quantity * v_price;
		INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
			ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
		VALUES (v_o_id, p_d_id, p_w_id, v_number, v_i_id, v_supply_w_id, NULL, v_quantity, v_amount, v_dist_info);
		SET v_total = v_total + v_amount, v_i = v_i + 1;
	END WHILE;
	-- The total the terminal displays (clause 2.4.3.3).
	SET v_total = v_total * (1 - v_discount) * (1 + v_w_tax + v_d_tax);
	COMMIT;
END`

const procMyPayment = `CREATE PROCEDURE fairbench_tpcc_payment(
	p_w_id INT, p_d_id INT, p_c_w_id INT, p_c_d_id INT, p_c_id INT, p_c_last VARCHAR(16), p_amount DECIMAL(6,2))
BEGIN
	DECLARE v_w_name, v_d_name VARCHAR(10);
	DECLARE v_w_street_1, v_w_street_2, v_w_city, v_d_street_1, v_d_street_2, v_d_city VARCHAR(20);
	DECLARE v_w_state, v_d_state CHAR(2);
	DECLARE v_w_zip, v_d_zip CHAR(9);
	DECLARE v_n, v_offset INT;
	DECLARE v_first, v_last VARCHAR(16);
	DECLARE v_middle, v_state, v_credit CHAR(2);
	DECLARE v_street_1, v_street_2, v_city VARCHAR(20);
	DECLARE v_zip CHAR(9);
	DECLARE v_phone CHAR(16);
	DECLARE v_since DATETIME;
	DECLARE v_credit_lim, v_balance DECIMAL(12,2);
	DECLARE v_discount DECIMAL(4,4);
	` + procMyRollback + `
	START TRANSACTION;
	UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w_id;
	SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip
	INTO v_w_name, v_w_street_1, v_w_street_2, v_w_city, v_w_state, v_w_zip
	FROM warehouse WHERE w_id = p_w_id;

	UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w_id AND d_id = p_d_id;
	SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip
	INTO v_d_name, v_d_street_1, v_d_street_2, v_d_city, v_d_state, v_d_zip
	FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;

	IF p_c_id = 0 THEN
		-- Clause 2.5.2.2: of the customers with this last name, sorted by
		-- first name, the one at position ceil(n/2).
		SELECT count(*) INTO v_n FROM customer
		WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_last = p_c_last;
		IF v_n = 0 THEN
			SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'fairbench_tpcc_payment: no customer with this last name';
		END IF;
		SET v_offset = (v_n + 1) DIV 2 - 1;
		SELECT c_id INTO p_c_id FROM customer
		WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_last = p_c_last
		ORDER BY c_first, c_id LIMIT v_offset, 1;
	END IF;

	SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since,
		c_credit, c_credit_lim, c_discount, c_balance
	INTO v_first, v_middle, v_last, v_street_1, v_street_2, v_city, v_state, v_zip, v_phone, v_since,
		v_credit, v_credit_lim, v_discount, v_balance
	FROM customer WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = p_c_id FOR UPDATE;

	IF v_credit = 'BC' THEN
		-- The payment's ids and amount at the left of c_data (as client.go
		-- writes them), cut to its 500 characters.
		UPDATE customer SET
			c_balance = c_balance - p_amount,
			c_ytd_payment = c_ytd_payment + p_amount,
			c_payment_cnt = c_payment_cnt + 1,
			c_data = LEFT(CONCAT_WS(' ', p_c_id, p_c_d_id, p_c_w_id, p_d_id, p_w_id, p_amount, '|', c_data), 500)
		WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = p_c_id;
	ELSE
		UPDATE customer SET
			c_balance = c_balance - p_amount,
			c_ytd_payment = c_ytd_payment + p_amount,
			c_payment_cnt = c_payment_cnt + 1
		WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = p_c_id;
	END IF;

	INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
	VALUES (p_c_id, p_c_d_id, p_c_w_id, p_d_id, p_w_id, NOW(), p_amount, CONCAT(v_w_name, '    ', v_d_name));
	COMMIT;
END`

// procMyOrderStatus sends the lines of the customer's newest order as a result
// set (none when the customer has no order).
const procMyOrderStatus = `CREATE PROCEDURE fairbench_tpcc_order_status(
	p_w_id INT, p_d_id INT, p_c_id INT, p_c_last VARCHAR(16))
BEGIN
	DECLARE v_n, v_offset, v_o_id, v_carrier_id INT;
	DECLARE v_balance DECIMAL(12,2);
	DECLARE v_first, v_last VARCHAR(16);
	DECLARE v_middle CHAR(2);
	DECLARE v_entry_d DATETIME;
	DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_o_id = NULL;
	` + procMyRollback + `
	START TRANSACTION;
	IF p_c_id = 0 THEN
		SELECT count(*) INTO v_n FROM customer
		WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_last = p_c_last;
		IF v_n = 0 THEN
			SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'fairbench_tpcc_order_status: no customer with this last name';
		END IF;
		SET v_offset = (v_n + 1) DIV 2 - 1;
		SELECT c_id INTO p_c_id FROM customer
		WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_last = p_c_last
		ORDER BY c_first, c_id LIMIT v_offset, 1;
	END IF;
	SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_last
	FROM customer WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = p_c_id;

	SET v_o_id = NULL;
	SELECT o_id, o_entry_d, o_carrier_id INTO v_o_id, v_entry_d, v_carrier_id
	FROM orders WHERE o_w_id = p_w_id AND o_d_id = p_d_id AND o_c_id = p_c_id
	ORDER BY o_id DESC LIMIT 1;

	-- With no order, v_o_id is NULL and the result set empty.
	SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d
	FROM order_line WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id AND ol_o_id = v_o_id;
	COMMIT;
END`

const procMyDelivery = `CREATE PROCEDURE fairbench_tpcc_delivery(p_w_id INT, p_carrier_id INT)
BEGIN
	DECLARE v_d_id INT DEFAULT 1;
	DECLARE v_o_id, v_c_id INT;
	DECLARE v_total DECIMAL(12,2);
	DECLARE v_now DATETIME DEFAULT NOW();
	DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_o_id = NULL;
	` + procMyRollback + `
	START TRANSACTION;
	WHILE v_d_id <= 10 DO -- districtsPerWarehouse
		SET v_o_id = NULL;
		SELECT no_o_id INTO v_o_id FROM new_order
		WHERE no_w_id = p_w_id AND no_d_id = v_d_id
		ORDER BY no_o_id LIMIT 1 FOR UPDATE;
		-- A district with no new order is skipped (clause 2.7.4.2).
		IF v_o_id IS NOT NULL THEN
			DELETE FROM new_order WHERE no_w_id = p_w_id AND no_d_id = v_d_id AND no_o_id = v_o_id;

			SELECT o_c_id INTO v_c_id FROM orders
			WHERE o_w_id = p_w_id AND o_d_id = v_d_id AND o_id = v_o_id FOR UPDATE;
			UPDATE orders SET o_carrier_id = p_carrier_id
			WHERE o_w_id = p_w_id AND o_d_id = v_d_id AND o_id = v_o_id;

			-- The lines are locked by the UPDATE, so the sum reads them as updated.
			UPDATE order_line SET ol_delivery_d = v_now
			WHERE ol_w_id = p_w_id AND ol_d_id = v_d_id AND ol_o_id = v_o_id;
			SELECT coalesce(sum(ol_amount), 0) INTO v_total FROM order_line
			WHERE ol_w_id = p_w_id AND ol_d_id = v_d_id AND ol_o_id = v_o_id;

			UPDATE customer SET c_balance = c_balance + v_total, c_delivery_cnt = c_delivery_cnt + 1
			WHERE c_w_id = p_w_id AND c_d_id = v_d_id AND c_id = v_c_id;
		END IF;
		SET v_d_id = v_d_id + 1;
	END WHILE;
	COMMIT;
END`

// procMyStockLevel sends its count as a one-row result set.
const procMyStockLevel = `CREATE PROCEDURE fairbench_tpcc_stock_level(p_w_id INT, p_d_id INT, p_threshold INT)
BEGIN
	DECLARE v_next_o_id INT;
	` + procMyRollback + `
	START TRANSACTION;
	SELECT d_next_o_id INTO v_next_o_id FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;
	SELECT count(DISTINCT s_i_id) AS stock_count
	FROM order_line JOIN stock ON s_w_id = p_w_id AND s_i_id = ol_i_id
	WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id
		AND ol_o_id >= v_next_o_id - 20 AND ol_o_id < v_next_o_id
		AND s_quantity < p_threshold;
	COMMIT;
END`

// procDDL are the routines' definitions per dialect, in procNames' order.
var procDDL = map[string][]string{
	"postgres": {procPGNewOrder, procPGPayment, procPGOrderStatus, procPGDelivery, procPGStockLevel},
	"mysql":    {procMyNewOrder, procMyPayment, procMyOrderStatus, procMyDelivery, procMyStockLevel},
}

// errNoProcedures is what SQLite gets for implementation = "procedures".
var errNoProcedures = errors.New("stored procedures: SQLite has none; use implementation = client")

// installProcedures creates the five routines, replacing fairbench's own
// from an earlier install, so it may run any number of times. Run it on one
// session while no other session calls the routines: MySQL's DROP and CREATE
// leave a moment with no procedure.
func installProcedures(ctx context.Context, c driver.SQL) error {
	ddl, ok := procDDL[c.Dialect()]
	if !ok {
		if c.Dialect() == "sqlite" {
			return errNoProcedures
		}
		return fmt.Errorf("stored procedures: dialect %s is not supported", c.Dialect())
	}
	// Every earlier version goes first: PostgreSQL's CREATE OR REPLACE adds
	// an overload when the arguments change instead of replacing.
	if err := dropProcedures(ctx, c); err != nil {
		return err
	}
	for i, stmt := range ddl {
		if c.Dialect() == "mysql" {
			// MySQL and MariaDB 10.11 have no CREATE OR REPLACE PROCEDURE
			// in common (MariaDB has it, MySQL 8 does not).
			if err := c.Exec(ctx, "DROP PROCEDURE IF EXISTS "+procNames[i]); err != nil {
				return fmt.Errorf("dropping procedure %s: %w", procNames[i], err)
			}
		}
		if err := c.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("creating %s: %w", procNames[i], err)
		}
	}
	return nil
}

// procCalls are the calls of the routines per dialect, in procNames' order.
// PostgreSQL gets New-Order's lines (line numbers, items, supplying
// warehouses, quantities) as array literals ('{1,2,3}') and
// Payment's amount as text, cast in the statement: text parameters read alike
// in every query mode. MySQL's CALL takes the lines as comma-separated lists
// and the amount as text that the DECIMAL parameter converts exactly.
var procCalls = map[string][]string{
	"postgres": {
		"SELECT fairbench_tpcc_new_order($1, $2, $3, $4, $5::int[], $6::int[], $7::int[], $8::int[])",
		"SELECT fairbench_tpcc_payment($1, $2, $3, $4, $5, $6, $7::numeric)",
		"SELECT * FROM fairbench_tpcc_order_status($1, $2, $3, $4)",
		"SELECT fairbench_tpcc_delivery($1, $2)",
		"SELECT fairbench_tpcc_stock_level($1, $2, $3)",
	},
	"mysql": {
		"CALL fairbench_tpcc_new_order($1, $2, $3, $4, $5, $6, $7, $8, $9)",
		"CALL fairbench_tpcc_payment($1, $2, $3, $4, $5, $6, $7)",
		"CALL fairbench_tpcc_order_status($1, $2, $3, $4)",
		"CALL fairbench_tpcc_delivery($1, $2)",
		"CALL fairbench_tpcc_stock_level($1, $2, $3)",
	},
}

// procTxns runs each transaction as one call of its stored routine.
type procTxns struct {
	mysql  bool
	stmts  [5]driver.Stmt // in procNames' order
	buf    []byte         // New-Order's lists, reused
	order  []int
	values [4]string
}

var _ txns = (*procTxns)(nil)

// newProcTxns prepares the calls on session c; the routines must have been
// installed (installProcedures).
func newProcTxns(ctx context.Context, c driver.SQL) (*procTxns, error) {
	calls, ok := procCalls[c.Dialect()]
	if !ok {
		if c.Dialect() == "sqlite" {
			return nil, errNoProcedures
		}
		return nil, fmt.Errorf("stored procedures: dialect %s is not supported", c.Dialect())
	}
	p := &procTxns{mysql: c.Dialect() == "mysql"}
	for i, q := range calls {
		st, err := c.Prepare(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("preparing the call of %s (are the procedures installed?): %w", procNames[i], err)
		}
		p.stmts[i] = st
	}
	return p, nil
}

// lists renders New-Order's lines as four lists, in the order of their
// stock rows (supplying warehouse, then item), each with its line number:
// '{1,2,3}' array literals for PostgreSQL, '1,2,3' for MySQL. The routine
// thus locks the stock rows in one order in every transaction, as the
// client implementation's single SELECT … FOR UPDATE of them all does,
// rather than deadlock on the lines' random order; each line keeps its
// number, so the order written is the same.
func (p *procTxns) lists(lines []orderLine) [4]string {
	p.order = p.order[:0]
	for i := range lines {
		p.order = append(p.order, i)
	}
	slices.SortStableFunc(p.order, func(a, b int) int {
		if c := cmp.Compare(lines[a].supplyWID, lines[b].supplyWID); c != 0 {
			return c
		}
		return cmp.Compare(lines[a].itemID, lines[b].itemID)
	})
	for k := range 4 {
		b := p.buf[:0]
		if !p.mysql {
			b = append(b, '{')
		}
		for n, i := range p.order {
			if n > 0 {
				b = append(b, ',')
			}
			var v int64
			switch k {
			case 0:
				v = int64(i + 1)
			case 1:
				v = lines[i].itemID
			case 2:
				v = lines[i].supplyWID
			case 3:
				v = lines[i].quantity
			}
			b = strconv.AppendInt(b, v, 10)
		}
		if !p.mysql {
			b = append(b, '}')
		}
		p.values[k] = string(b)
		p.buf = b
	}
	return p.values
}

func (p *procTxns) newOrder(ctx context.Context, in *newOrderIn) error {
	allLocal := int64(0)
	if in.allLocal {
		allLocal = 1
	}
	l := p.lists(in.lines)
	var err error
	if p.mysql {
		err = p.stmts[0].Exec(ctx, in.wID, in.dID, in.cID, allLocal, int64(len(in.lines)), l[0], l[1], l[2], l[3])
	} else {
		err = p.stmts[0].Exec(ctx, in.wID, in.dID, in.cID, allLocal, l[0], l[1], l[2], l[3])
	}
	if err != nil && strings.Contains(err.Error(), invalidItemMessage) {
		// The routine raised it after (PostgreSQL: by) rolling back.
		return errRolledBack
	}
	return err
}

func (p *procTxns) payment(ctx context.Context, in *paymentIn) error {
	return p.stmts[1].Exec(ctx, in.wID, in.dID, in.cWID, in.cDID, in.cID, in.cLast, in.amount)
}

func (p *procTxns) orderStatus(ctx context.Context, in *orderStatusIn) error {
	_, err := p.orderStatusLines(ctx, in)
	return err
}

// orderStatusLines runs Order-Status and returns how many order lines it
// returned, read to the end as a terminal would display them.
func (p *procTxns) orderStatusLines(ctx context.Context, in *orderStatusIn) (int, error) {
	rows, err := p.stmts[2].Query(ctx, in.wID, in.dID, in.cID, in.cLast)
	if err != nil {
		return 0, err
	}
	n := 0
	var item, supply, quantity int64
	var amount string
	var delivery any
	for rows.Next() {
		if err := rows.Scan(&item, &supply, &quantity, &amount, &delivery); err != nil {
			rows.Close()
			return n, err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return n, err
	}
	return n, rows.Close()
}

func (p *procTxns) delivery(ctx context.Context, in *deliveryIn) error {
	return p.stmts[3].Exec(ctx, in.wID, in.carrierID)
}

func (p *procTxns) stockLevel(ctx context.Context, in *stockLevelIn) error {
	_, err := p.stockCount(ctx, in)
	return err
}

// stockCount runs Stock-Level and returns its count.
func (p *procTxns) stockCount(ctx context.Context, in *stockLevelIn) (int64, error) {
	return p.stmts[4].QueryInt64(ctx, in.wID, in.dID, in.threshold)
}
